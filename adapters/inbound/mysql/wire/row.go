package wire

// The column types of the protocol (MYSQL_TYPE_*) a row reader tells
// apart.
const (
	TypeDecimal    = 0x00
	TypeTiny       = 0x01
	TypeShort      = 0x02
	TypeLong       = 0x03
	TypeFloat      = 0x04
	TypeDouble     = 0x05
	TypeNull       = 0x06
	TypeTimestamp  = 0x07
	TypeLongLong   = 0x08
	TypeInt24      = 0x09
	TypeDate       = 0x0a
	TypeTime       = 0x0b
	TypeDatetime   = 0x0c
	TypeYear       = 0x0d
	TypeNewDate    = 0x0e
	TypeVarchar    = 0x0f
	TypeBit        = 0x10
	TypeTimestamp2 = 0x11
	TypeDatetime2  = 0x12
	TypeTime2      = 0x13
	TypeJSON       = 0xf5
	TypeNewDecimal = 0xf6
	TypeEnum       = 0xf7
	TypeSet        = 0xf8
	TypeTinyBlob   = 0xf9
	TypeMediumBlob = 0xfa
	TypeLongBlob   = 0xfb
	TypeBlob       = 0xfc
	TypeVarString  = 0xfd
	TypeString     = 0xfe
	TypeGeometry   = 0xff
)

// BinaryValueLen returns how many bytes the binary-protocol value of a
// column of type t takes at the start of b ("Binary Protocol Value"),
// and where its content starts (after a length prefix); ok is false when
// b is too short.
func BinaryValueLen(t byte, b []byte) (start, n int, ok bool) {
	switch t {
	case TypeNull:
		return 0, 0, true
	case TypeTiny:
		n = 1
	case TypeShort, TypeYear:
		n = 2
	case TypeLong, TypeInt24, TypeFloat:
		n = 4
	case TypeLongLong, TypeDouble:
		n = 8
	case TypeDate, TypeDatetime, TypeTimestamp, TypeTime, TypeNewDate, TypeTimestamp2, TypeDatetime2, TypeTime2:
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
