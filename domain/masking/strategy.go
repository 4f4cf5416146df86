package masking

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"unicode"
	"unicode/utf8"
)

// Strategy is what a masked value becomes (docs/masking.md, "Strategies").
type Strategy string

// The strategies.
const (
	// Redact replaces the value with its entity's name in angle brackets
	// (<EMAIL_ADDRESS>), or <REDACTED> for a column rule.
	Redact Strategy = "redact"
	// Mask replaces every letter and digit with '*' and keeps the rest
	// (separators, '@', spaces), so the length and shape stay.
	Mask Strategy = "mask"
	// Partial is Mask but for the last KeepLast letters and digits.
	Partial Strategy = "partial"
	// Hash replaces the value with the first 128 bits of its HMAC-SHA256
	// under the rule's key, as 32 lowercase hex digits: the same value
	// gives the same text on every connection of every Sidecar that has
	// the key, so an agent can still join or count on it.
	Hash Strategy = "hash"
)

// redactedColumn is what Redact makes of a whole value masked by a column
// rule, which names no entity.
const redactedColumn = "REDACTED"

// apply masks v (a whole value, or one entity found in a text). label is
// the entity's name, or "" for a column rule's whole value.
func (r *rule) apply(dst []byte, v []byte, label string) []byte {
	switch r.strategy {
	case Redact:
		if label == "" {
			label = redactedColumn
		}
		dst = append(dst, '<')
		dst = append(dst, label...)
		return append(dst, '>')
	case Hash:
		m := hmac.New(sha256.New, r.key)
		m.Write(v)
		sum := m.Sum(nil)
		return hex.AppendEncode(dst, sum[:16])
	case Partial:
		return maskRunes(dst, v, r.keepLast)
	default:
		return maskRunes(dst, v, 0)
	}
}

// maskRunes appends v with every letter and digit but the last keep
// replaced by '*'. A value with no more than keep letters and digits is
// masked whole: a short value is never shown entire. Bytes that are not
// UTF-8 count as letters.
func maskRunes(dst []byte, v []byte, keep int) []byte {
	alnum := 0
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRune(v[i:])
		if r == utf8.RuneError || unicode.IsLetter(r) || unicode.IsDigit(r) {
			alnum++
		}
		i += n
	}
	if alnum <= keep {
		keep = 0
	}
	hide := alnum - keep
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRune(v[i:])
		if r == utf8.RuneError || unicode.IsLetter(r) || unicode.IsDigit(r) {
			if hide > 0 {
				dst = append(dst, '*')
				hide--
			} else {
				dst = append(dst, v[i:i+n]...)
			}
		} else {
			dst = append(dst, v[i:i+n]...)
		}
		i += n
	}
	return dst
}
