package httplistener

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxDecodeRounds is how many times a path is percent-decoded when its
// readings are worked out. A path that still decodes further after that many
// rounds is malformed: the Sidecar answers it with 400 and never forwards it.
const maxDecodeRounds = 4

// maxReadPath bounds the work on one path (bytes): a path longer than this
// that mentions "hoop" in any spelling is malformed rather than read every
// way. Common servers refuse a request line over 8 KiB anyway.
const maxReadPath = 8 << 10

// The two segments of the reserved prefix /.well-known/hoop/, compared
// without regard to case.
const (
	prefixSeg1 = ".well-known"
	prefixSeg2 = "hoop"
)

// readsIntoPrefix reports whether some reading of the path p (as sent: still
// percent-encoded, rooted or not) lies under /.well-known/hoop/, and whether
// p's decoding settles within maxDecodeRounds (settled false: malformed, and
// in is then meaningless). A path over maxReadPath bytes that mentions "hoop"
// does not settle either.
//
// A reading is p taken one of the ways that some server along the way may
// take it (docs/http-listener.md, "The /.well-known/hoop/ reservation"):
//
//   - decoded 0 to maxDecodeRounds times before it is cut into segments,
//     each segment then decoded fully; with plain %XX escapes only, or
//     leniently (also %uXXXX, overlong UTF-8, Unicode compatibility forms
//     such as fullwidth letters and dots, Unicode case folding onto ASCII);
//   - cut at '/' only, or at '/' and '\';
//   - each segment compared without regard to case, and optionally: cut at
//     the first ';', '?', '#' or NUL; with NULs removed; with trailing dots
//     and spaces trimmed (a segment of dots and spaces only then reads as "."
//     for one dot and ".." for more);
//   - empty segments kept (RFC 3986) or dropped (repeated slashes collapsed);
//   - dot segments resolved as RFC 3986 §5.2.4 does.
//
// A reading lies under the prefix when, at any step of that resolution, the
// path built so far starts with the segments ".well-known", "hoop": so the
// raw path, the decoded path, the resolved path, and every leading part of
// them that ends at a segment boundary, count. All combinations are tried.
func readsIntoPrefix(p string) (in, settled bool) {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	plain, ok := decodeLevels(p, percentRound)
	if !ok {
		return false, false
	}
	lenient, ok := decodeLevels(foldLenient(p), lenientRound)
	if !ok {
		return false, false
	}
	sameLenient := lenient == plain
	// Every reading under the prefix has a segment that reads "hoop", and
	// every reading's segments come from the fully decoded path, cut short
	// or with NULs removed.
	if !mentionsHoop(plain[maxDecodeRounds]) && (sameLenient || !mentionsHoop(lenient[maxDecodeRounds])) {
		return false, true
	}
	if len(p) > maxReadPath {
		return false, false
	}
	for _, lv := range [2]struct {
		levels *[maxDecodeRounds + 1]string
		round  func(string) string
	}{{&plain, percentRound}, {&lenient, lenientRound}} {
		for k, s := range lv.levels {
			if k > 0 && s == lv.levels[k-1] {
				break // settled: the deeper levels read the same
			}
			for _, backslash := range [2]bool{false, true} {
				if backslash && strings.IndexByte(s, '\\') < 0 {
					continue // the same segments as without
				}
				if segmentsReachPrefix(s, backslash, lv.round, maxDecodeRounds-k) {
					return true, true
				}
			}
		}
		if sameLenient {
			break // nothing lenient in p: the same readings again
		}
	}
	return false, true
}

// decodeLevels returns s decoded 0 to maxDecodeRounds times with round, and
// whether it settled (one more round changes nothing).
func decodeLevels(s string, round func(string) string) (levels [maxDecodeRounds + 1]string, settled bool) {
	levels[0] = s
	for k := 1; k <= maxDecodeRounds; k++ {
		levels[k] = round(levels[k-1])
	}
	return levels, round(levels[maxDecodeRounds]) == levels[maxDecodeRounds]
}

// mentionsHoop reports whether s contains "hoop" in any ASCII letter case,
// NULs between its letters ignored.
func mentionsHoop(s string) bool {
	j := 0
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // ASCII lower case for letters; no other byte becomes one of "hop"
		switch {
		case s[i] == 0:
		case c == prefixSeg2[j]:
			if j++; j == len(prefixSeg2) {
				return true
			}
		case c == 'h':
			j = 1
		default:
			j = 0
		}
	}
	return false
}

// A segment class: what a segment is to the resolution.
type segClass uint8

const (
	segOther segClass = iota
	segEmpty
	segDot
	segDotDot
	segPrefix1 // ".well-known"
	segPrefix2 // "hoop"
)

// Segment reading options (bits of a variant).
const (
	optCut    = 1 << iota // cut at the first ';', '?', '#' or NUL
	optNUL                // NULs removed
	optTrim               // trailing dots and spaces trimmed
	nVariants = 1 << iota
)

// resolver follows one reading's RFC 3986 §5.2.4 resolution: only the depth
// of the output and the class of its first two segments matter.
type resolver struct {
	depth  int
	c1, c2 segClass
}

// step feeds one segment; it reports whether the output now starts with the
// reserved prefix's two segments.
func (r *resolver) step(c segClass, collapse bool) bool {
	switch c {
	case segDot:
		return false
	case segDotDot:
		if r.depth > 0 {
			r.depth--
		}
		return false
	case segEmpty:
		if collapse {
			return false
		}
	}
	switch r.depth {
	case 0:
		r.c1 = c
	case 1:
		r.c2 = c
	}
	r.depth++
	return r.depth == 2 && r.c1 == segPrefix1 && r.c2 == segPrefix2
}

// segmentsReachPrefix cuts the rooted path s into segments (at '/', and at
// '\' too when backslash), decodes each up to rounds more times with round,
// and runs every variant of segment reading, with empty segments kept and
// dropped, through the resolution.
func segmentsReachPrefix(s string, backslash bool, round func(string) string, rounds int) bool {
	var rs [2 * nVariants]resolver
	s = s[1:] // the root
	for {
		i := strings.IndexByte(s, '/')
		if backslash {
			if j := strings.IndexByte(s, '\\'); j >= 0 && (i < 0 || j < i) {
				i = j
			}
		}
		seg := s
		if i >= 0 {
			seg = s[:i]
		}
		for range rounds {
			d := round(seg)
			if d == seg {
				break
			}
			seg = d
		}
		cs := classes(seg)
		for v, c := range cs {
			if rs[2*v].step(c, false) || rs[2*v+1].step(c, true) {
				return true
			}
		}
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
}

// classes reads one decoded segment under each variant (bits optCut,
// optNUL, optTrim).
func classes(seg string) (cs [nVariants]segClass) {
	cut := seg
	if i := strings.IndexAny(seg, ";?#\x00"); i >= 0 {
		cut = seg[:i]
	}
	for v := range nVariants {
		s := seg
		if v&optCut != 0 {
			s = cut
		}
		if v&optNUL != 0 && strings.IndexByte(s, 0) >= 0 {
			s = strings.ReplaceAll(s, "\x00", "")
		}
		if v&optTrim != 0 {
			s = trimDotsSpaces(s)
		}
		cs[v] = classOf(s)
	}
	return cs
}

// trimDotsSpaces trims trailing dots and spaces off s; a segment of dots and
// spaces only reads as "." for one dot, ".." for more, "" for none.
func trimDotsSpaces(s string) string {
	t := strings.TrimRight(s, ". ")
	if t != "" || s == "" {
		return t
	}
	switch strings.Count(s, ".") {
	case 0:
		return ""
	case 1:
		return "."
	}
	return ".."
}

// classOf returns the class of a segment as read.
func classOf(s string) segClass {
	switch len(s) {
	case 0:
		return segEmpty
	case 1:
		if s == "." {
			return segDot
		}
	case 2:
		if s == ".." {
			return segDotDot
		}
	case len(prefixSeg2):
		if strings.EqualFold(s, prefixSeg2) {
			return segPrefix2
		}
	}
	// Not by length alone: case folding may map a multi-byte letter (U+212A
	// KELVIN SIGN) onto an ASCII one.
	if len(s) >= len(prefixSeg1) && len(s) <= len(prefixSeg1)+2 && strings.EqualFold(s, prefixSeg1) {
		return segPrefix1
	}
	return segOther
}

// percentRound decodes every valid %XX escape in s once; an invalid one
// stays as it is.
func percentRound(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		if i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			s = s[i+3:]
		} else {
			b.WriteByte('%')
			s = s[i+1:]
		}
		i = strings.IndexByte(s, '%')
	}
	b.WriteString(s)
	return b.String()
}

// lenientRound is one round of what lenient servers decode: %XX escapes,
// IIS-style %uXXXX escapes, then foldLenient.
func lenientRound(s string) string {
	if i := strings.IndexByte(s, '%'); i >= 0 {
		var b strings.Builder
		b.Grow(len(s))
		b.WriteString(s[:i])
		for ; i < len(s); i++ {
			switch {
			case s[i] != '%':
			case i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]):
				b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
				i += 2
				continue
			case i+5 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U') &&
				ishex(s[i+2]) && ishex(s[i+3]) && ishex(s[i+4]) && ishex(s[i+5]):
				r := rune(unhex(s[i+2]))<<12 | rune(unhex(s[i+3]))<<8 | rune(unhex(s[i+4]))<<4 | rune(unhex(s[i+5]))
				b.WriteRune(r)
				i += 5
				continue
			}
			b.WriteByte(s[i])
		}
		s = b.String()
	}
	return foldLenient(s)
}

// foldLenient maps what lenient servers read as ASCII onto ASCII: overlong
// UTF-8 encodings of ASCII (C0 AE for '.'), Unicode compatibility forms
// (NFKC: fullwidth letters, U+2024 ONE DOT LEADER, U+2025 TWO DOT LEADER…),
// and letters whose case folds onto an ASCII letter (U+212A KELVIN SIGN).
// An ASCII-only s is returned as it is.
func foldLenient(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	s = norm.NFKC.String(unOverlong(s))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r >= utf8.RuneSelf {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f < utf8.RuneSelf {
					r = f
					break
				}
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unOverlong replaces each overlong UTF-8 encoding of an ASCII character
// (two, three or four bytes) with that character.
func unOverlong(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if c, n := overlongASCII(s[i:]); n > 0 {
			b.WriteByte(c)
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// overlongASCII decodes an overlong encoding of an ASCII character at the
// start of s: c and its length n, or n = 0.
func overlongASCII(s string) (c byte, n int) {
	cont := func(i int) bool { return i < len(s) && s[i]&0xC0 == 0x80 }
	switch {
	case len(s) >= 2 && (s[0] == 0xC0 || s[0] == 0xC1) && cont(1):
		return (s[0]&0x1F)<<6 | s[1]&0x3F, 2
	case len(s) >= 3 && s[0] == 0xE0 && s[1] < 0x82 && cont(1) && cont(2):
		return (s[1]&0x3F)<<6 | s[2]&0x3F, 3
	case len(s) >= 4 && s[0] == 0xF0 && s[1] == 0x80 && s[2] < 0x82 && cont(2) && cont(3):
		return (s[2]&0x3F)<<6 | s[3]&0x3F, 4
	}
	return 0, 0
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
