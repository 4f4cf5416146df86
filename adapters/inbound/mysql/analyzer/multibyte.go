package analyzer

import "errors"

// errMultiByte: in the client character sets big5, cp932, gbk, gb18030
// and sjis a byte 0x81–0xFE followed by a backslash (0x5C) or a backtick
// (0x60) may be one character, so that backslash escapes nothing and that
// backtick ends no quoted name: the server would split such a text where a
// reading that keeps every ASCII byte a character does not (after SET NAMES
// gbk, SELECT 1 AS `a<0x95>`, 2 AS `; DELETE FROM t; -- ` runs the DELETE).
// It is not ErrUncheckable: a rule naming UNKNOWN holds such a text for a
// person instead.
var errMultiByte = errors.New("in a multi-byte client character set (GBK, SJIS, BIG5, CP932) a byte 0x81-0xFE before a backslash or a backtick may hide where a string or quoted name ends")

// multiByteAmbiguous reports whether sql holds a byte 0x81–0xFE directly
// followed by a backslash or a backtick (see errMultiByte).
func multiByteAmbiguous(sql string) bool {
	for i := 0; i+1 < len(sql); i++ {
		if c := sql[i]; c >= 0x81 && c <= 0xfe && (sql[i+1] == '\\' || sql[i+1] == '`') {
			return true
		}
	}
	return false
}
