package command

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// appendRelaxed appends doc as relaxed Extended JSON v2, byte for byte what
// bson.MarshalExtJSON(doc, false, false) of the driver v2.10.0 writes
// (TestRelaxedMatchesDriver, FuzzCommand), without its reflection and
// per-value allocations: the gate renders every statement for the audit
// trail, allowed ones included. It covers the types commands carry
// (documents, arrays, strings, numbers, booleans, null, ObjectId, dates,
// binary, timestamps) and reports false on any other type, or malformed
// BSON, so the caller falls back to the driver.
func appendRelaxed(dst []byte, doc []byte, array bool, depth int) ([]byte, bool) {
	if depth > wire.MaxDepth+1 {
		return dst, false
	}
	if array {
		dst = append(dst, '[')
	} else {
		dst = append(dst, '{')
	}
	ok, first := true, true
	each(doc, func(key []byte, e bsoncore.Element) bool {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		if !array {
			dst = appendJSONString(dst, key)
			dst = append(dst, ':')
		}
		dst, ok = appendRelaxedValue(dst, valueOf(key, e), depth)
		return ok
	})
	if !ok {
		return dst, false
	}
	if array {
		return append(dst, ']'), true
	}
	return append(dst, '}'), true
}

func appendRelaxedValue(dst []byte, v bsoncore.Value, depth int) ([]byte, bool) {
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		return appendRelaxed(dst, v.Data, v.Type == bsoncore.TypeArray, depth+1)
	case bsoncore.TypeString:
		s, ok := v.StringValueOK()
		return appendJSONString(dst, []byte(s)), ok
	case bsoncore.TypeInt32:
		n, ok := v.Int32OK()
		return strconv.AppendInt(dst, int64(n), 10), ok
	case bsoncore.TypeInt64:
		n, ok := v.Int64OK()
		return strconv.AppendInt(dst, n, 10), ok
	case bsoncore.TypeDouble:
		f, ok := v.DoubleOK()
		switch {
		case !ok:
			return dst, false
		case math.IsInf(f, 1):
			return append(dst, `{"$numberDouble":"Infinity"}`...), true
		case math.IsInf(f, -1):
			return append(dst, `{"$numberDouble":"-Infinity"}`...), true
		case math.IsNaN(f):
			return append(dst, `{"$numberDouble":"NaN"}`...), true
		}
		start := len(dst)
		dst = strconv.AppendFloat(dst, f, 'G', -1, 64)
		if s := dst[start:]; !strings.ContainsAny(string(s), "E.") {
			dst = append(dst, ".0"...)
		}
		return dst, true
	case bsoncore.TypeBoolean:
		if len(v.Data) < 1 || v.Data[0] > 1 {
			return dst, false
		}
		return strconv.AppendBool(dst, v.Data[0] == 1), true
	case bsoncore.TypeNull:
		return append(dst, "null"...), true
	case bsoncore.TypeObjectID:
		if len(v.Data) < 12 {
			return dst, false
		}
		dst = append(dst, `{"$oid":"`...)
		dst = hex.AppendEncode(dst, v.Data[:12])
		return append(dst, `"}`...), true
	case bsoncore.TypeDateTime:
		if len(v.Data) < 8 {
			return dst, false
		}
		ms := int64(binary.LittleEndian.Uint64(v.Data))
		t := time.Unix(ms/1e3, ms%1e3*1e6).UTC()
		if t.Year() < 1970 || t.Year() > 9999 {
			dst = append(dst, `{"$date":{"$numberLong":"`...)
			dst = strconv.AppendInt(dst, ms, 10)
			return append(dst, `"}}`...), true
		}
		dst = append(dst, `{"$date":"`...)
		dst = t.AppendFormat(dst, "2006-01-02T15:04:05.999Z07:00")
		return append(dst, `"}`...), true
	case bsoncore.TypeBinary:
		sub, data, ok := v.BinaryOK()
		if !ok || sub == 0x02 { // the old binary subtype: leave its inner length to the driver
			return dst, false
		}
		dst = append(dst, `{"$binary":{"base64":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, data)
		dst = append(dst, `","subType":"`...)
		dst = hex.AppendEncode(dst, []byte{sub})
		return append(dst, `"}}`...), true
	case bsoncore.TypeTimestamp:
		t, i, ok := v.TimestampOK()
		dst = append(dst, `{"$timestamp":{"t":`...)
		dst = strconv.AppendUint(dst, uint64(t), 10)
		dst = append(dst, `,"i":`...)
		dst = strconv.AppendUint(dst, uint64(i), 10)
		return append(dst, `}}`...), ok
	}
	return dst, false
}

// appendJSONString appends s quoted and escaped as the driver's
// writeStringWithEscapes does without HTML escaping: \" \\ \n \r \t \b \f,
// other control bytes as \u00XX, invalid UTF-8 as \ufffd, U+2028 and
// U+2029 escaped.
func appendJSONString(dst []byte, s []byte) []byte {
	const hexChars = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexChars[b>>4], hexChars[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRune(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexChars[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
