package mssql

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"

	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/tds"
)

// maskValue decides one non-NULL value v of a column typed ti under field
// f (MS-TDS 2.2.5.5.1 value layouts, as tds.DecodeRow returns them). It
// returns the value to send (v itself when nothing changed), null when it
// must be sent as NULL instead, or err (a *masking.UnreadableError) when a
// strict rule could not read it: the rest of the result is withheld.
//
// Text types are decoded (nvarchar, nchar, ntext and xml from UTF-16LE;
// varchar, char and text from their collation's code page), masked as
// text and encoded back; a masked text longer than its type's length
// field can say becomes NULL. Numbers, money and floats are rendered as
// the server prints them and become NULL when an entity is found in that
// text (a card number in a bigint) or a column rule masks them whole;
// dates, times, GUIDs and bits are never an entity but become NULL under
// a column rule; binary values are searched as they are. sql_variant and
// CLR types are Unreadable.
func maskValue(f *masking.Field, ti tds.TypeInfo, v []byte) (out []byte, null bool, err error) {
	switch ti.Type {
	case tds.TypeNVarChar, tds.TypeNChar, tds.TypeNText, tds.TypeXML:
		if len(v)%2 != 0 {
			return unreadable(f, v, "UTF-16 text of an odd number of bytes")
		}
		m, changed := f.Text(nil, []byte(tds.DecodeUCS2(v)))
		if !changed {
			return v, false, nil
		}
		out = tds.AppendUCS2(nil, string(m))
		return out, !fits(ti, len(out)), nil
	case tds.TypeBigVarChar, tds.TypeBigChar, tds.TypeVarChar, tds.TypeChar, tds.TypeText:
		return maskCodePage(f, ti, v)
	case tds.TypeBinary, tds.TypeVarBinary, tds.TypeBigBinary, tds.TypeBigVarBinary, tds.TypeImage:
		return v, f.NonText(v), nil
	case tds.TypeVariant:
		return unreadable(f, v, "a sql_variant value")
	case tds.TypeUDT:
		return unreadable(f, v, "a CLR user-defined type value")
	}
	if text, ok := numberText(ti, v); ok {
		return v, f.NonText(text), nil
	}
	// Dates, times, GUIDs, bits: no entity is written in them.
	if f.Whole() {
		return v, f.NonText(nil), nil
	}
	return v, false, nil
}

// unreadable is maskValue's answer for a value it cannot read.
func unreadable(f *masking.Field, v []byte, what string) ([]byte, bool, error) {
	null, err := f.Unreadable(what)
	return v, null, err
}

// fits reports whether a value of n bytes can be sent in ti's length field
// (BYTELEN types hold 254 bytes, USHORTLEN ones 65534, PLP and LONGLEN
// ones more than a row the relay holds).
func fits(ti tds.TypeInfo, n int) bool {
	switch {
	case ti.Type == tds.TypeVarChar || ti.Type == tds.TypeChar:
		return n < 0xFF
	case ti.IsPLP(), ti.Type == tds.TypeText, ti.Type == tds.TypeNText:
		return true
	}
	return n < 0xFFFF
}

// numberText renders an integer, decimal, float or money value as the
// server would print it; ok false for another type.
func numberText(ti tds.TypeInfo, v []byte) ([]byte, bool) {
	le := binary.LittleEndian
	switch ti.Type {
	case tds.TypeInt1, tds.TypeInt2, tds.TypeInt4, tds.TypeInt8, tds.TypeIntN:
		switch len(v) {
		case 1:
			return strconv.AppendInt(nil, int64(v[0]), 10), true // TINYINT is unsigned
		case 2:
			return strconv.AppendInt(nil, int64(int16(le.Uint16(v))), 10), true
		case 4:
			return strconv.AppendInt(nil, int64(int32(le.Uint32(v))), 10), true
		case 8:
			return strconv.AppendInt(nil, int64(le.Uint64(v)), 10), true
		}
	case tds.TypeFlt4, tds.TypeFlt8, tds.TypeFltN:
		switch len(v) {
		case 4:
			return strconv.AppendFloat(nil, float64(math.Float32frombits(le.Uint32(v))), 'f', -1, 32), true
		case 8:
			return strconv.AppendFloat(nil, math.Float64frombits(le.Uint64(v)), 'f', -1, 64), true
		}
	case tds.TypeMoney, tds.TypeMoney4, tds.TypeMoneyN:
		switch len(v) {
		case 4:
			return scaled(big.NewInt(int64(int32(le.Uint32(v)))), 4), true
		case 8: // the high 32 bits first (MS-TDS 2.2.5.5.1.4)
			return scaled(big.NewInt(int64(int32(le.Uint32(v)))<<32|int64(le.Uint32(v[4:]))), 4), true
		}
	case tds.TypeDecimal, tds.TypeNumeric, tds.TypeDecimalN, tds.TypeNumericN:
		if len(v) < 2 {
			return nil, false
		}
		mag := make([]byte, len(v)-1) // little-endian magnitude after the sign byte
		for i := range mag {
			mag[i] = v[len(v)-1-i]
		}
		n := new(big.Int).SetBytes(mag)
		if v[0] == 0 {
			n.Neg(n)
		}
		return scaled(n, int(ti.Scale)), true
	}
	return nil, false
}

// scaled renders n / 10^scale with its decimals.
func scaled(n *big.Int, scale int) []byte {
	digits := new(big.Int).Abs(n).String()
	var out []byte
	if n.Sign() < 0 {
		out = append(out, '-')
	}
	if scale <= 0 {
		return append(out, digits...)
	}
	for len(digits) <= scale {
		digits = "0" + digits
	}
	out = append(out, digits[:len(digits)-scale]...)
	out = append(out, '.')
	return append(out, digits[len(digits)-scale:]...)
}
