package wire

import gm "github.com/go-mysql-org/go-mysql/mysql"

// BinaryValueLen returns how many bytes the binary-protocol value of a
// column of type t (gm.MYSQL_TYPE_*) takes at the start of b ("Binary Protocol Value"),
// and where its content starts (after a length prefix); ok is false when
// b is too short.
func BinaryValueLen(t byte, b []byte) (start, n int, ok bool) {
	switch t {
	case gm.MYSQL_TYPE_NULL:
		return 0, 0, true
	case gm.MYSQL_TYPE_TINY:
		n = 1
	case gm.MYSQL_TYPE_SHORT, gm.MYSQL_TYPE_YEAR:
		n = 2
	case gm.MYSQL_TYPE_LONG, gm.MYSQL_TYPE_INT24, gm.MYSQL_TYPE_FLOAT:
		n = 4
	case gm.MYSQL_TYPE_LONGLONG, gm.MYSQL_TYPE_DOUBLE:
		n = 8
	case gm.MYSQL_TYPE_DATE, gm.MYSQL_TYPE_DATETIME, gm.MYSQL_TYPE_TIMESTAMP, gm.MYSQL_TYPE_TIME,
		gm.MYSQL_TYPE_NEWDATE, gm.MYSQL_TYPE_TIMESTAMP2, gm.MYSQL_TYPE_DATETIME2, gm.MYSQL_TYPE_TIME2:
		if len(b) < 1 {
			return 0, 0, false
		}
		start, n = 1, 1+int(b[0])
	default: // strings, DECIMAL, BIT, JSON, ENUM, SET, BLOB, GEOMETRY: length-encoded
		v, k, ok := LenencInt(b)
		if !ok || v > uint64(len(b)-k) {
			return 0, 0, false
		}
		start, n = k, k+int(v)
	}
	if n > len(b) {
		return 0, 0, false
	}
	return start, n, true
}

// NullBitmapLen is the length of a binary row's NULL bitmap for cols
// columns (the bitmap starts 2 bits in).
func NullBitmapLen(cols int) int { return (cols + 7 + 2) / 8 }
