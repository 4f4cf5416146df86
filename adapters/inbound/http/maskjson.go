package httplistener

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/hoophq/sidecar/domain/masking"
)

// jsonMasker rewrites one JSON document (RFC 8259) value by value, keeping
// its bytes (spacing, escapes, number spelling) wherever nothing is masked.
// A string is masked as text at its field path (keys from the root, array
// indexes left out); a number or boolean under a column rule, or holding an
// entity (a card number sent as a number), becomes null; so does an object
// or array that a column rule masks whole. Keys are masked by entity, as
// text with no path.
type jsonMasker struct {
	p    *masking.Plan
	keys *masking.Field // entities only: for object keys
	path []string
	out  []byte
}

// maskJSON returns doc with plan p applied and whether anything changed.
// doc is one JSON value or a sequence of them (NDJSON, a Kubernetes watch),
// as jsonValues splits it: the caller refuses a doc it does not split.
func maskJSON(p *masking.Plan, doc []byte, values [][2]int) ([]byte, bool) {
	m := &jsonMasker{p: p, keys: p.Field(), out: make([]byte, 0, len(doc)+len(doc)/8)}
	at := 0
	for _, v := range values {
		m.out = append(m.out, doc[at:v[0]]...)
		m.value(doc[:v[1]], v[0])
		at = v[1]
	}
	m.out = append(m.out, doc[at:]...)
	if bytes.Equal(m.out, doc) {
		return doc, false
	}
	return m.out, true
}

// maxJSONPath is how deeply objects may nest in a JSON body the listener
// masks: each value's field path is looked up whole, so a deeper chain
// costs time that grows with the square of its depth (130 KB nested 10,000
// deep took seconds). Deeper bodies are unreadable (mask.go).
const maxJSONPath = 128

// jsonObjectDepth returns how deeply objects nest in the valid JSON doc.
func jsonObjectDepth(doc []byte) int {
	var depth, deepest int
	var stack []bool // true: an object
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case '"':
			i = skipString(doc, i) - 1
		case '{', '[':
			stack = append(stack, doc[i] == '{')
			if doc[i] == '{' {
				depth++
				deepest = max(deepest, depth)
			}
		case '}', ']':
			if n := len(stack); n > 0 {
				if stack[n-1] {
					depth--
				}
				stack = stack[:n-1]
			}
		}
	}
	return deepest
}

// jsonValues returns where each top-level JSON value of doc starts and
// ends (white space between them left out), as encoding/json reads them;
// ok is false when doc is not a sequence of JSON values.
func jsonValues(doc []byte) (values [][2]int, ok bool) {
	d := json.NewDecoder(bytes.NewReader(doc))
	for {
		var raw json.RawMessage
		err := d.Decode(&raw)
		if err == io.EOF {
			return values, true
		}
		if err != nil {
			return nil, false
		}
		end := int(d.InputOffset())
		values = append(values, [2]int{end - len(raw), end})
	}
}

// space copies the white space of b from i and returns where it ends.
func (m *jsonMasker) space(b []byte, i int) int {
	j := i
	for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
		j++
	}
	m.out = append(m.out, b[i:j]...)
	return j
}

// value rewrites the value starting at b[i] and returns where it ends.
func (m *jsonMasker) value(b []byte, i int) int {
	f := m.p.Field(m.path...)
	switch b[i] {
	case '{', '[':
		if f.Whole() {
			end := skipValue(b, i)
			if f.NonText(b[i:end]) {
				m.out = append(m.out, "null"...)
				return end
			}
		}
		return m.container(b, i)
	case '"':
		end := skipString(b, i)
		m.text(f, b[i:end])
		return end
	default:
		end := i
		for end < len(b) && !isJSONDelim(b[end]) {
			end++
		}
		if f != nil && b[i] != 'n' && f.NonText(b[i:end]) {
			m.out = append(m.out, "null"...)
		} else {
			m.out = append(m.out, b[i:end]...)
		}
		return end
	}
}

// text writes the JSON string raw (quotes included) masked by f.
func (m *jsonMasker) text(f *masking.Field, raw []byte) {
	if f == nil {
		m.out = append(m.out, raw...)
		return
	}
	masked, changed := f.Text(nil, unquote(raw))
	if !changed {
		m.out = append(m.out, raw...)
		return
	}
	m.out = appendJSONString(m.out, masked)
}

// container rewrites the object or array starting at b[i] member by member
// and returns where it ends. An object's keys are masked as text by entity
// (m.keys) and name the path of their values.
func (m *jsonMasker) container(b []byte, i int) int {
	closer := byte(']')
	if b[i] == '{' {
		closer = '}'
	}
	m.out = append(m.out, b[i])
	i = m.space(b, i+1)
	for b[i] != closer {
		if closer == '}' {
			end := skipString(b, i)
			key := unquote(b[i:end])
			m.text(m.keys, b[i:end])
			i = m.space(b, end)
			m.out = append(m.out, ':') // b[i] == ':'
			i = m.space(b, i+1)
			m.path = append(m.path, string(key))
			i = m.value(b, i)
			m.path = m.path[:len(m.path)-1]
		} else {
			i = m.value(b, i)
		}
		i = m.space(b, i)
		if b[i] == ',' {
			m.out = append(m.out, ',')
			i = m.space(b, i+1)
		}
	}
	m.out = append(m.out, closer)
	return i + 1
}

// unquote returns the text of the valid JSON string raw (quotes included):
// raw's own bytes when it holds no escape.
func unquote(raw []byte) []byte {
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		var d string
		_ = json.Unmarshal(raw, &d) // valid JSON: cannot fail
		s = []byte(d)
	}
	return s
}

func isJSONDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// skipString returns the end of the JSON string starting at b[i] (after
// its closing quote).
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// skipValue returns the end of the JSON object or array starting at b[i].
func skipValue(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = skipString(b, j) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(b)
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, everything else as it is (no HTML escaping,
// so a redacted <EMAIL_ADDRESS> reads as such).
func appendJSONString(out, s []byte) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		case c < utf8.RuneSelf:
			out = append(out, c)
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				out = append(out, `\ufffd`...)
			} else {
				out = append(out, s[i:i+n]...)
			}
			i += n
			continue
		}
		i++
	}
	return append(out, '"')
}
