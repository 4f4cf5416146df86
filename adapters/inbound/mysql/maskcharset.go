package mysql

import (
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
)

// valueCharset is how the masking reads the text values of a column: the
// character set its column definition names (the session's
// character_set_results, or the column's own when that is NULL).
type valueCharset struct {
	name string
	// enc decodes the values to UTF-8 and encodes the masked text back;
	// nil when the values are read as they are (utf8mb3/utf8mb4, ascii,
	// binary).
	enc encoding.Encoding
	// unknown: a character set the masking cannot decode (dec8, hp8, swe7,
	// …): its values are unreadable.
	unknown bool
}

// charsetNames maps MariaDB's character sets to their decoders
// (MariaDB's latin1 is cp1252).
var charsetNames = map[string]encoding.Encoding{
	"latin1": charmap.Windows1252, "latin2": charmap.ISO8859_2, "latin5": charmap.ISO8859_9,
	"latin7": charmap.ISO8859_13, "greek": charmap.ISO8859_7, "hebrew": charmap.ISO8859_8,
	"cp1250": charmap.Windows1250, "cp1251": charmap.Windows1251, "cp1256": charmap.Windows1256,
	"cp1257": charmap.Windows1257, "cp850": charmap.CodePage850, "cp852": charmap.CodePage852,
	"cp866": charmap.CodePage866, "koi8r": charmap.KOI8R, "koi8u": charmap.KOI8U,
	"macroman": charmap.Macintosh, "gbk": simplifiedchinese.GBK, "gb2312": simplifiedchinese.GBK,
	"big5": traditionalchinese.Big5, "sjis": japanese.ShiftJIS, "cp932": japanese.ShiftJIS,
	"ujis": japanese.EUCJP, "eucjpms": japanese.EUCJP, "euckr": korean.EUCKR,
	"ucs2": unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf16": unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM),
	"utf16le": unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf32": utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM),
}

// charsetOfCollation returns how the values of a column whose definition
// names collation id are read.
func charsetOfCollation(id uint16) valueCharset {
	name := wideCollationCharset(id)
	if id < 256 {
		name = analyzer.CollationCharset(byte(id))
	}
	switch name {
	case "utf8mb3", "utf8mb4", "utf8", "ascii", "binary":
		return valueCharset{name: name}
	}
	if enc, ok := charsetNames[name]; ok {
		return valueCharset{name: name, enc: enc}
	}
	if name == "" {
		name = "an unknown collation"
	}
	return valueCharset{name: name, unknown: true}
}

// wideCollationCharset returns the character set of a MariaDB collation id
// above 255, or "" for an id MariaDB 10.11 does not assign. The ids are
// derived from the character set (MariaDB include/m_ctype.h):
//   - 0x240, 0x260, 0x280, 0x2A0, 0x2E0 (MY_PAGE2_COLLATION_ID_*): three
//     collations each of utf8mb3, utf8mb4, ucs2, utf16, utf32;
//   - 1024+x (MY_NOPAD_ID): the NO PAD twin of collation x below 256;
//   - 2048 + cs<<8 + tailoring<<3 + flags: the UCA 14.0.0 collations of
//     utf8mb3, utf8mb4, ucs2, utf16, utf32 (tailorings 0–20, 23, 24).
func wideCollationCharset(id uint16) string {
	switch {
	case id >= 0x200 && id < 0x300 && id&0x1f < 3:
		return page2Charsets[(id-0x200)>>5]
	case id >= 1024 && id < 1280:
		return analyzer.CollationCharset(byte(id - 1024))
	case id >= 2048 && id < 2048+5<<8:
		if t := id & 0xff >> 3; t > 20 && t != 23 && t != 24 {
			return ""
		}
		return ucaCharsets[(id-2048)>>8]
	}
	return ""
}

var (
	page2Charsets = [8]string{2: "utf8mb3", 3: "utf8mb4", 4: "ucs2", 5: "utf16", 7: "utf32"}
	ucaCharsets   = [5]string{"utf8mb3", "utf8mb4", "ucs2", "utf16", "utf32"}
)
