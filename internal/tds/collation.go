package tds

import (
	"encoding/binary"

	"golang.org/x/text/encoding/charmap"
)

// CollationUTF8 reports whether a collation (MS-TDS 2.2.5.1.2) has fUTF8
// set (SQL Server 2019's _UTF8 collations): its varchar values are UTF-8.
func CollationUTF8(c [5]byte) bool { return c[3]&0x04 != 0 } // bit 26 of the first four bytes

// CollationCharmap returns the single-byte Windows code page of a
// collation (MS-TDS 2.2.5.1.2), in which varchar, char and text values
// are sent: from its SQL sort id when it has one (the SQL_Latin1_General
// family: 1252), else from its LCID's primary language; nil for a code
// page not listed here.
func CollationCharmap(c [5]byte) *charmap.Charmap {
	if id := c[4]; id != 0 {
		switch {
		case id >= 50 && id <= 61, id >= 183 && id <= 186: // SQL_Latin1_General_CP1_*, SQL_*_Pref_CP1_*
			return charmap.Windows1252
		case id >= 80 && id <= 96: // SQL_*_CP1250_*
			return charmap.Windows1250
		case id >= 104 && id <= 108: // SQL_*_CP1251_*
			return charmap.Windows1251
		case id >= 112 && id <= 124: // SQL_*_CP1253_*
			return charmap.Windows1253
		case id >= 128 && id <= 130: // SQL_*_CP1254_*
			return charmap.Windows1254
		case id >= 136 && id <= 138: // SQL_*_CP1255_*
			return charmap.Windows1255
		case id >= 144 && id <= 146: // SQL_*_CP1256_*
			return charmap.Windows1256
		case id >= 152 && id <= 160: // SQL_*_CP1257_*
			return charmap.Windows1257
		}
		return nil
	}
	switch binary.LittleEndian.Uint32(c[:4]) & 0x3FF { // the LCID's primary language
	case 0x09, 0x07, 0x0C, 0x0A, 0x10, 0x16, 0x13, 0x06, 0x14, 0x1D, 0x0B, 0x0F, 0x03, 0x2D, 0x56, 0x36, 0x21, 0x3E, 0x41, 0x38:
		return charmap.Windows1252 // English, German, French, Spanish, Italian, Portuguese, Dutch, Nordic, …
	case 0x05, 0x15, 0x0E, 0x1A, 0x1B, 0x24, 0x18, 0x1C:
		return charmap.Windows1250 // Czech, Polish, Hungarian, Croatian, Slovak, Slovenian, Romanian, Albanian
	case 0x19, 0x22, 0x02, 0x23, 0x2F:
		return charmap.Windows1251 // Russian, Ukrainian, Bulgarian, Belarusian, Macedonian
	case 0x08:
		return charmap.Windows1253 // Greek
	case 0x1F:
		return charmap.Windows1254 // Turkish
	case 0x0D:
		return charmap.Windows1255 // Hebrew
	case 0x01:
		return charmap.Windows1256 // Arabic
	case 0x25, 0x26, 0x27:
		return charmap.Windows1257 // Estonian, Latvian, Lithuanian
	case 0x2A:
		return charmap.Windows1258 // Vietnamese
	case 0x1E:
		return charmap.Windows874 // Thai
	}
	return nil
}
