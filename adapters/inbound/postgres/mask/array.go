package mask

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/hoophq/sidecar/domain/masking"
)

var errArray = errors.New("an array that does not parse")

// arrayText masks an array of elem in text format, as PostgreSQL prints
// it: optional bounds ("[1:2]="), braces, elements separated by ',',
// double-quoted with backslash escapes when they need it, NULL unquoted.
// Each element is masked as a value of elem; a changed one is written
// double-quoted. The result is appended to dst when changed.
func (r *Row) arrayText(dst []byte, f *masking.Field, elem uint32, v []byte) (out []byte, changed bool, err error) {
	i := 0
	if len(v) > 0 && v[0] == '[' {
		if i = bytes.IndexByte(v, '=') + 1; i == 0 {
			return dst, false, errArray
		}
	}
	if i >= len(v) || v[i] != '{' {
		return dst, false, errArray
	}
	out, at, depth := dst, 0, 0
	for i < len(v) {
		switch c := v[i]; c {
		case '{':
			depth++
			i++
			continue
		case '}':
			depth--
			i++
			continue
		case ',', ' ':
			i++
			continue
		}
		if depth <= 0 {
			return dst, false, errArray
		}
		start := i
		var raw []byte
		if v[i] == '"' {
			var ok bool
			if raw, i, ok = r.unquote(v, i); !ok {
				return dst, false, errArray
			}
		} else {
			for i < len(v) && v[i] != ',' && v[i] != '}' {
				i++
			}
			raw = v[start:i]
			if string(raw) == "NULL" {
				continue
			}
		}
		m, null, ch, err := r.value(r.elem[:0], f, elem, 0, raw)
		r.keepElem(m)
		if err != nil {
			return dst, false, err
		}
		if null { // a text-like element is never NULLed; kept for safety
			m, ch = []byte("NULL"), true
		}
		if ch {
			out = append(out, v[at:start]...)
			out, at, changed = appendQuoted(out, m, null), i, true
		}
	}
	if depth != 0 {
		return dst, false, errArray
	}
	if !changed {
		return dst, false, nil
	}
	return append(out, v[at:]...), true, nil
}

// keepElem keeps the buffer an element was masked into for the next one.
func (r *Row) keepElem(m []byte) {
	if cap(m) > cap(r.elem) {
		r.elem = m[:0]
	}
}

// unquote reads the double-quoted element at v[i] and returns its content
// and the index after it.
func (r *Row) unquote(v []byte, i int) ([]byte, int, bool) {
	buf := r.raw[:0]
	for i++; i < len(v); i++ {
		switch v[i] {
		case '\\':
			if i++; i >= len(v) {
				return nil, 0, false
			}
		case '"':
			r.raw = buf[:0]
			return buf, i + 1, true
		}
		buf = append(buf, v[i])
	}
	return nil, 0, false
}

// appendQuoted appends an array element double-quoted ('"' and '\'
// escaped), or NULL unquoted.
func appendQuoted(dst, s []byte, null bool) []byte {
	if null {
		return append(dst, "NULL"...)
	}
	dst = append(dst, '"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return append(dst, '"')
}

// arrayBinary masks an array in binary format (array_send: dimensions,
// a has-NULL flag, the element type, each dimension's size and lower
// bound, then each element as a length, -1 for NULL, and its bytes). Its
// elements are masked as binary values of the element type it names.
func (r *Row) arrayBinary(dst []byte, f *masking.Field, v []byte) (out []byte, null, changed bool, err error) {
	bad := func() ([]byte, bool, bool, error) {
		null, err := f.Unreadable("an array in binary format that does not parse")
		return dst, null, false, err
	}
	if len(v) < 12 {
		return bad()
	}
	ndim := int(int32(binary.BigEndian.Uint32(v)))
	elem := binary.BigEndian.Uint32(v[8:])
	if ndim < 0 || ndim > 6 || len(v) < 12+8*ndim {
		return bad()
	}
	n, pos := 1, 12+8*ndim
	if ndim == 0 {
		n = 0
	}
	for d := 0; d < ndim; d++ {
		size := int(int32(binary.BigEndian.Uint32(v[12+8*d:])))
		if size < 0 || size > len(v) || n*size > len(v) {
			return bad()
		}
		n *= size
	}
	out, at := dst, 0
	for k := 0; k < n; k++ {
		if pos+4 > len(v) {
			return bad()
		}
		start, l := pos, int(int32(binary.BigEndian.Uint32(v[pos:])))
		pos += 4
		if l < 0 {
			continue
		}
		if l > len(v)-pos {
			return bad()
		}
		m, enull, ch, err := r.value(r.elem[:0], f, elem, 1, v[pos:pos+l])
		r.keepElem(m)
		pos += l
		if err != nil {
			return dst, false, false, err
		}
		if !enull && !ch {
			continue
		}
		out = append(out, v[at:start]...)
		if enull {
			out = binary.BigEndian.AppendUint32(out, 0xFFFFFFFF)
			binary.BigEndian.PutUint32(out[len(dst)+4:], 1) // the has-NULL flag
		} else {
			out = binary.BigEndian.AppendUint32(out, uint32(len(m)))
			out = append(out, m...)
		}
		at, changed = pos, true
	}
	if pos != len(v) {
		return bad()
	}
	if !changed {
		return dst, false, false, nil
	}
	return append(out, v[at:]...), false, true, nil
}
