package analyzer

import (
	"fmt"
	"strings"
)

// byteClass is how a client character set reads one byte outside a string,
// a quoted name or a comment, next to how the lexer reads it in utf8mb4.
type byteClass uint8

const (
	// clsAsIs: read as in utf8mb4 (a byte 0x80–0xFF as part of a word; the
	// server may refuse it as a character it cannot place, which runs
	// nothing).
	clsAsIs byteClass = iota
	// clsSpace: whitespace (latin1 0xA0): it separates tokens and ends "--"
	// as a comment start. The lexer reads it as a space.
	clsSpace
	// clsDashEnd: a control character: after "--" it starts a comment;
	// anywhere else the server refuses it, as the parser does.
	clsDashEnd
	// clsUnmodelled: read in a way the lexer does not model (an ASCII byte
	// that is a letter in swe7; whitespace that may be part of a multi-byte
	// character): outside a literal, the text is uncheckable.
	clsUnmodelled
)

// charsetInfo is what the lexer knows of one client character set.
type charsetInfo struct {
	name  string
	class [256]byteClass
	// asciiTrail: a multi-byte character may end in an ASCII byte
	// (big5, cp932, gbk, sjis): see errMultiByte.
	asciiTrail bool
	// known: the character set is in charsetSpecs. An unknown one reads
	// every byte 0x7F–0xFF outside a literal as clsUnmodelled and is
	// treated as asciiTrail.
	known bool
}

// charsetSpec is one row of charsetSpecs (charsets_table.go): the bytes of
// each class other than clsAsIs, as a string of bytes.
type charsetSpec struct {
	spaces, dashEnds, unmodelled string
	asciiTrail                   bool
}

var (
	utf8mb4Info = &charsetInfo{name: "utf8mb4", known: true}
	charsets    = buildCharsets()
)

func buildCharsets() map[string]*charsetInfo {
	out := make(map[string]*charsetInfo, len(charsetSpecs))
	for name, sp := range charsetSpecs {
		ci := &charsetInfo{name: name, asciiTrail: sp.asciiTrail, known: true}
		for _, set := range []struct {
			bytes string
			c     byteClass
		}{{sp.spaces, clsSpace}, {sp.dashEnds, clsDashEnd}, {sp.unmodelled, clsUnmodelled}} {
			for i := 0; i < len(set.bytes); i++ {
				ci.class[set.bytes[i]] = set.c
			}
		}
		out[name] = ci
	}
	return out
}

// charsetOf returns the lexer's view of the client character set name (as
// @@character_set_client names it, any case); "" is utf8mb4.
func charsetOf(name string) *charsetInfo {
	if name == "" {
		return utf8mb4Info
	}
	if ci, ok := charsets[strings.ToLower(name)]; ok {
		return ci
	}
	ci := &charsetInfo{name: name, asciiTrail: true}
	ci.class[0x7f] = clsUnmodelled
	for b := 0x80; b < 0x100; b++ {
		ci.class[b] = clsUnmodelled
	}
	return ci
}

// KnownCharset reports whether the analyzer models the client character
// set name (@@character_set_client, any case): the sets MariaDB 10.11
// accepts as a client character set, measured against the server
// (charsets_table.go). Any other set is read strictly: a byte 0x7F–0xFF
// outside a literal makes a text uncheckable.
func KnownCharset(name string) bool { return charsetOf(name).known }

// CollationCharset returns the character set of a collation id as the
// handshake carries it (one byte), or "" for an id the table lacks.
func CollationCharset(id byte) string { return collationCharsets[id] }

// errCharsetByte is the error of a byte the session's character set reads
// in a way the lexer does not model.
func errCharsetByte(ci *charsetInfo, at int, b byte) error {
	return fmt.Errorf("%w: in the client character set %s the byte 0x%02X at %d may be whitespace, a quote or a letter, which the analyzer does not model there", ErrUncheckable, ci.name, b, at)
}
