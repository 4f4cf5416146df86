package wire

import gm "github.com/go-mysql-org/go-mysql/mysql"

// LenencInt decodes a length-encoded integer (MySQL Client/Server
// Protocol, "Integer Types"). n is the bytes it took; ok is false when b is
// too short or starts with 0xfb (NULL) or 0xff (an ERR).
func LenencInt(b []byte) (v uint64, n int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	switch b[0] {
	case 0xfb, 0xff:
		return 0, 1, false
	case 0xfc:
		n = 3
	case 0xfd:
		n = 4
	case 0xfe:
		n = 9
	default:
		return uint64(b[0]), 1, true
	}
	if len(b) < n {
		return 0, 0, false
	}
	for i := n - 1; i >= 1; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, n, true
}

// LenencString splits a length-encoded string off b; ok is false when b is
// too short.
func LenencString(b []byte) (s, rest []byte, ok bool) {
	v, n, ok := LenencInt(b)
	if !ok || v > uint64(len(b)-n) {
		return nil, nil, false
	}
	return b[n : n+int(v)], b[n+int(v):], true
}

// AppendLenencString appends s as a length-encoded string.
func AppendLenencString(b, s []byte) []byte {
	return append(gm.AppendLengthEncodedInteger(b, uint64(len(s))), s...)
}
