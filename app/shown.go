package app

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxShownStatement is the longest rendering of a held statement, in bytes,
// that the gate files with the Control Plane for the approver
// (ports.FileRequest.Statement). Longer renderings are cut by Shown. It keeps
// a filed request far below the 1 MiB body the Control Plane contract takes
// (docs/control-plane-api.md, "Sizes") even when every byte is escaped in
// JSON (six characters for a control byte: 384 KiB). The same rule for every
// protocol: a protocol's Render may stop early past this many bytes (a 48 MB
// MongoDB insert is pruned first), never cut below it.
const MaxShownStatement = 64 << 10

// Shown returns what the approver reads of a held statement: rendering
// itself when it is at most MaxShownStatement bytes, else its first
// MaxShownStatement bytes (cut on a UTF-8 boundary) followed by a note
// naming the size of the whole statement and its SHA-256, both over
// canonical, the bytes the fingerprint covers:
//
//	…
//	-- [cut by the Sidecar: the first 65536 bytes of the rendering are shown; the whole statement is 2097185 bytes, SHA-256 5f3a…]
//
// The fingerprint still covers the whole statement: the cut changes only
// what the approver reads (docs/control-plane-api.md, "Sizes").
func Shown(rendering string, canonical []byte) string {
	if len(rendering) <= MaxShownStatement {
		return rendering
	}
	n := MaxShownStatement
	for n > 0 && !utf8.RuneStart(rendering[n]) {
		n--
	}
	sum := sha256.Sum256(canonical)
	return rendering[:n] + "\n-- [cut by the Sidecar: the first " + strconv.Itoa(n) +
		" bytes of the rendering are shown; the whole statement is " + strconv.Itoa(len(canonical)) +
		" bytes, SHA-256 " + hex.EncodeToString(sum[:]) + "]"
}

// WithParameters renders a statement for the approver with its bound
// values: text alone when there are none, else text, a new line and
// "-- parameters: " with the values (each already rendered by its
// protocol, e.g. "$1 = 42" or "@id = 42") joined by ", ".
func WithParameters(text string, values []string) string {
	if len(values) == 0 {
		return text
	}
	return text + "\n-- parameters: " + strings.Join(values, ", ")
}
