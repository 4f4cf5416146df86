package mask

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/hoophq/sidecar/domain/masking"
)

// The type OIDs read as text (pg_type.dat).
const (
	oidName    = 19
	oidText    = 25
	oidJSON    = 114
	oidBPChar  = 1042
	oidVarchar = 1043
	oidUnknown = 705
	oidJSONB   = 3802
	oidBytea   = 17
	// oidByteaArray is bytea[].
	oidByteaArray = 1001
)

// arrayElem maps the array types of the text-like types to their
// element type.
var arrayElem = map[uint32]uint32{1003: oidName, 1009: oidText, 199: oidJSON, 1014: oidBPChar, 1015: oidVarchar, 3807: oidJSONB}

// binaryArrays are the array types of the types render reads: in binary
// format their elements are read one by one (an element an entity is
// found in becomes NULL); in text format the array is one value for
// NonText.
var binaryArrays = map[uint32]bool{1000: true, 1002: true, 1005: true, 1007: true, 1028: true, 1016: true,
	1021: true, 1022: true, 1231: true, 2951: true, 1001: true, 1182: true, 1115: true, 1185: true, 1183: true,
	1270: true, 1187: true, 1041: true, 651: true, 1040: true, 775: true}

// value masks one non-NULL value v of type oid in format (0 text, 1
// binary). When it changed, its masked form is appended to dst (out);
// null says it must be sent as NULL instead. Text-like types (text,
// varchar, bpchar, name, unknown) are masked inside, json and jsonb string
// by string, arrays of them element by element; any other type is read as
// the text the server prints for it (Field.NonText), rendered from the
// binary format where binary.go can, else Field.Unreadable.
func (r *Row) value(dst []byte, f *masking.Field, oid uint32, format int16, v []byte) (out []byte, null, changed bool, err error) {
	elem, isArray := arrayElem[oid]
	switch {
	case oid == oidText || oid == oidVarchar || oid == oidBPChar || oid == oidName || oid == oidUnknown:
		if !f.Whole() && !readable(r.Encoding) {
			null, err = f.Unreadable("text in client_encoding " + r.Encoding)
			return dst, null, false, err
		}
		m, changed := r.text(f, v)
		if changed {
			dst = append(dst, m...)
		}
		return dst, false, changed, nil
	case oid == oidJSON || oid == oidJSONB:
		if !f.Whole() && !readable(r.Encoding) {
			null, err = f.Unreadable("json in client_encoding " + r.Encoding)
			return dst, null, false, err
		}
		mark := len(dst)
		if oid == oidJSONB && format == 1 {
			if len(v) == 0 || v[0] != 1 {
				null, err = f.Unreadable("jsonb in a binary version other than 1")
				return dst, null, false, err
			}
			dst, v = append(dst, 1), v[1:]
		}
		out, changed, err := r.json(dst, f, v)
		if err != nil {
			null, err = f.Unreadable("json that does not parse")
			return dst[:mark], null, false, err
		}
		if !changed {
			return dst[:mark], false, false, nil
		}
		return out, false, true, nil
	case isArray:
		if format == 1 {
			return r.arrayBinary(dst, f, v)
		}
		out, changed, err := r.arrayText(dst, f, elem, v)
		if err != nil {
			null, err = f.Unreadable(fmt.Sprintf("an array of type %d that does not parse", oid))
		}
		return out, null, changed, err
	}
	if format == 1 && binaryArrays[oid] {
		return r.arrayBinary(dst, f, v)
	}
	switch {
	case oid == oidBytea && format == 1:
		// Its bytes, not the hex the server would print: an email kept
		// in a bytea is an email to the client that reads it.
		return dst, f.NonText(v), false, nil
	case (oid == oidBytea || oid == oidByteaArray) && format == 0:
		if b, ok := unhexBytea(r.num[:0], v); ok {
			r.num = b[:0]
			return dst, f.NonText(b), false, nil
		}
	}
	text := v
	if format != 0 {
		if r.types == nil {
			r.types = pgtype.NewMap()
		}
		var ok bool
		if text, ok = render(r.types, r.num[:0], oid, v); !ok {
			null, err = f.Unreadable(fmt.Sprintf("a value of type OID %d in binary format", oid))
			return dst, null, false, err
		}
		r.num = text[:0]
	}
	return dst, f.NonText(text), false, nil
}

// readable reports whether text in client encoding enc can be read by the
// entity patterns: UTF8, or an encoding of one byte per character whose
// ASCII is ASCII. The other multi-byte encodings put ASCII bytes inside
// characters (SJIS's '@' second byte).
func readable(enc string) bool {
	switch strings.ToUpper(enc) {
	case "EUC_CN", "EUC_JP", "EUC_JIS_2004", "EUC_KR", "EUC_TW", "GB18030", "GBK", "SJIS", "SHIFT_JIS_2004",
		"BIG5", "UHC", "JOHAB", "MULE_INTERNAL":
		return false
	}
	return true
}

// unhexBytea appends to dst the bytes of each bytea in hex output (\x…,
// or \\x… inside an array literal) in v, a space between two, and reports
// whether v held one. A bytea in escape output is text as it is.
func unhexBytea(dst, v []byte) ([]byte, bool) {
	found := false
	for i := 0; i+1 < len(v); i++ {
		if v[i] != '\\' || v[i+1] != 'x' {
			continue
		}
		if found {
			dst = append(dst, ' ')
		}
		found = true
		j := i + 2
		for ; j+1 < len(v) && isHex(v[j]) && isHex(v[j+1]); j += 2 {
			dst = append(dst, unhex(v[j])<<4|unhex(v[j+1]))
		}
		i = j - 1
	}
	return dst, found
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
