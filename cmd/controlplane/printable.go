package main

import (
	"fmt"
	"strings"
	"unicode"
)

// printable returns s for a terminal: every control character except
// newline and tab (C0, DEL, C1) and every bidirectional formatting character
// is written as a visible escape (\x1b, \u009b, \u202e). Statements and
// client identities come from agents; printed raw, escape sequences could
// move the cursor and make the approver's terminal show another statement
// than the one filed.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
