package store

import "strings"

// text returns s as every store can keep it: PostgreSQL text holds no NUL
// byte and only valid UTF-8, so each NUL and each invalid byte sequence
// becomes U+FFFD. Every string a store method writes or looks up goes
// through it, so a statement with a NUL byte is filed (the approver sees
// U+FFFD), and an id no row can hold reads as an unknown id.
func text(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
