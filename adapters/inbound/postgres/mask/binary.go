package mask

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"net/netip"
	"strconv"
	"time"
)

// pgEpoch is the zero of PostgreSQL's binary dates and timestamps.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// render appends to dst the text of a binary value v of type oid, close
// to what PostgreSQL prints for it (ISO dates), so that Field.NonText can
// look for entities in it (a card number kept in a bigint or a numeric, an
// address in an inet). ok is false for a type it does not know or a value
// of the wrong size.
func render(dst []byte, oid uint32, v []byte) (out []byte, ok bool) {
	be := binary.BigEndian
	switch {
	case oid == 16 && len(v) == 1: // bool
		return strconv.AppendBool(dst, v[0] != 0), true
	case oid == 18 && len(v) == 1: // "char"
		return append(dst, v...), true
	case oid == 21 && len(v) == 2:
		return strconv.AppendInt(dst, int64(int16(be.Uint16(v))), 10), true
	case oid == 23 && len(v) == 4:
		return strconv.AppendInt(dst, int64(int32(be.Uint32(v))), 10), true
	case oid == 26 && len(v) == 4: // oid
		return strconv.AppendUint(dst, uint64(be.Uint32(v)), 10), true
	case oid == 20 && len(v) == 8:
		return strconv.AppendInt(dst, int64(be.Uint64(v)), 10), true
	case oid == 700 && len(v) == 4:
		return strconv.AppendFloat(dst, float64(math.Float32frombits(be.Uint32(v))), 'f', -1, 32), true
	case oid == 701 && len(v) == 8:
		return strconv.AppendFloat(dst, math.Float64frombits(be.Uint64(v)), 'f', -1, 64), true
	case oid == 1700:
		return appendNumeric(dst, v)
	case oid == 2950 && len(v) == 16: // uuid
		h := hex.AppendEncode(nil, v)
		return append(dst, string(h[:8])+"-"+string(h[8:12])+"-"+string(h[12:16])+"-"+string(h[16:20])+"-"+string(h[20:])...), true
	case oid == 17: // bytea, as its hex output
		return hex.AppendEncode(append(dst, '\\', 'x'), v), true
	case oid == 1082 && len(v) == 4: // date
		return pgEpoch.AddDate(0, 0, int(int32(be.Uint32(v)))).AppendFormat(dst, "2006-01-02"), true
	case (oid == 1114 || oid == 1184) && len(v) == 8: // timestamp, timestamptz
		return pgEpoch.Add(time.Duration(int64(be.Uint64(v)))*time.Microsecond).AppendFormat(dst, "2006-01-02 15:04:05.999999"), true
	case oid == 1083 && len(v) == 8, oid == 1266 && len(v) == 12: // time, timetz
		return pgEpoch.Add(time.Duration(int64(be.Uint64(v)))*time.Microsecond).AppendFormat(dst, "15:04:05.999999"), true
	case oid == 1186 && len(v) == 16: // interval: microseconds, days, months
		dst = strconv.AppendInt(dst, int64(int32(be.Uint32(v[12:]))), 10)
		dst = strconv.AppendInt(append(dst, " mons "...), int64(int32(be.Uint32(v[8:]))), 10)
		return append(strconv.AppendInt(append(dst, " days "...), int64(be.Uint64(v)), 10), " us"...), true
	case oid == 869 || oid == 650: // inet, cidr: family, bits, is_cidr, length, address
		return appendInet(dst, v)
	case oid == 829 && len(v) == 6, oid == 774 && len(v) == 8: // macaddr, macaddr8
		for i, b := range v {
			if i > 0 {
				dst = append(dst, ':')
			}
			dst = hex.AppendEncode(dst, []byte{b})
		}
		return dst, true
	}
	return dst, false
}

// appendInet renders an inet or cidr (inet_send): address/bits.
func appendInet(dst, v []byte) ([]byte, bool) {
	if len(v) < 4 || int(v[3]) != len(v)-4 {
		return dst, false
	}
	a, ok := netip.AddrFromSlice(v[4:])
	if !ok {
		return dst, false
	}
	dst = a.AppendTo(dst)
	return strconv.AppendInt(append(dst, '/'), int64(v[1]), 10), true
}

// appendNumeric renders a numeric (numeric_send: digit count, weight,
// sign, display scale, then base-10000 digits) in plain notation.
func appendNumeric(dst, v []byte) ([]byte, bool) {
	be := binary.BigEndian
	if len(v) < 8 {
		return dst, false
	}
	nd, weight := int(int16(be.Uint16(v))), int(int16(be.Uint16(v[2:])))
	sign, scale := be.Uint16(v[4:]), int(int16(be.Uint16(v[6:])))
	if nd < 0 || len(v) != 8+2*nd || scale < 0 {
		return dst, false
	}
	switch sign {
	case 0xC000:
		return append(dst, "NaN"...), true
	case 0xD000:
		return append(dst, "Infinity"...), true
	case 0xF000:
		return append(dst, "-Infinity"...), true
	case 0x4000:
		dst = append(dst, '-')
	case 0:
	default:
		return dst, false
	}
	digit := func(i int) int {
		if i < 0 || i >= nd {
			return 0
		}
		return int(be.Uint16(v[8+2*i:]))
	}
	var group [4]byte
	four := func(d int) []byte {
		for k := 3; k >= 0; k-- {
			group[k] = byte('0' + d%10)
			d /= 10
		}
		return group[:]
	}
	if weight < 0 {
		dst = append(dst, '0')
	}
	for i := 0; i <= weight; i++ {
		if d := digit(i); d > 9999 {
			return dst, false
		} else if i == 0 {
			dst = strconv.AppendInt(dst, int64(d), 10)
		} else {
			dst = append(dst, four(d)...)
		}
	}
	if scale > 0 {
		dst = append(dst, '.')
		for i, n := weight+1, 0; n < scale; i++ {
			for _, c := range four(digit(i)) {
				if n < scale {
					dst, n = append(dst, c), n+1
				}
			}
		}
	}
	return dst, true
}
