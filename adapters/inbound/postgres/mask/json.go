package mask

import (
	"encoding/json"
	"errors"

	"github.com/hoophq/sidecar/domain/masking"
)

var errJSON = errors.New("json that does not parse")

// json appends to dst the json text v with every string (keys included)
// masked by f.Text and every number an entity is found in (Field.NonText)
// replaced by null; the rest of the text is kept byte for byte, so the
// result is json whenever v is. Under a column rule the whole text becomes
// one json string holding its masked form. changed is false when nothing
// was masked (dst is then returned as it was).
func (r *Row) json(dst []byte, f *masking.Field, v []byte) (out []byte, changed bool, err error) {
	if f.Whole() {
		m, _ := r.text(f, v)
		return appendJSONString(dst, m), true, nil
	}
	out, at := dst, 0
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"':
			end, escaped := stringEnd(v, i)
			if end < 0 {
				return dst, false, errJSON
			}
			s := v[i+1 : end-1]
			if escaped {
				var str string
				if json.Unmarshal(v[i:end], &str) != nil {
					return dst, false, errJSON
				}
				s = []byte(str)
			}
			if m, ch := r.text(f, s); ch {
				out = append(out, v[at:i]...)
				out, at, changed = appendJSONString(out, m), end, true
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(v) && (v[j] >= '0' && v[j] <= '9' || v[j] == '.' || v[j] == 'e' || v[j] == 'E' || v[j] == '+' || v[j] == '-') {
				j++
			}
			if f.NonText(v[i:j]) {
				out = append(out, v[at:i]...)
				out, at, changed = append(out, "null"...), j, true
			}
			i = j
		default:
			i++
		}
	}
	if !changed {
		return dst, false, nil
	}
	return append(out, v[at:]...), true, nil
}

// stringEnd returns the index just past the json string that starts at
// v[i] (a '"'), or -1 when it does not end; escaped says it holds a
// backslash escape.
func stringEnd(v []byte, i int) (end int, escaped bool) {
	for j := i + 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// appendJSONString appends s as a json string: '"' and '\' escaped, and
// control characters as \u00XX.
func appendJSONString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
