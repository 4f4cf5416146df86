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
	name := wideCollations[id]
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
