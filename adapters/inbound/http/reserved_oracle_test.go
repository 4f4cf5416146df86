package httplistener

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// This file restates, by brute force, the readings that docs/http-listener.md
// ("The /.well-known/hoop/ reservation") lists: every combination is built
// as a string and resolved with RFC 3986 §5.2.4's own algorithm, on every
// leading part of the path. It shares no code with the listener, so the fuzz
// target compares two independent readings of the same rule.

const oracleRounds = 4 // the decodings the docs promise

// maxFuzzTarget bounds the targets the fuzz targets try (bytes): the oracle
// resolves every leading part of every reading, so its work grows with the
// square of the length.
const maxFuzzTarget = 200

// oracleInPrefix reports whether some reading of the request target lies
// under /.well-known/hoop/, and whether every decoding of it settled within
// oracleRounds (when not, the Sidecar refuses it as malformed).
func oracleInPrefix(target string) (in, settled bool) {
	for _, p := range oraclePaths(target) {
		for _, lenient := range []bool{false, true} {
			dec := oraclePercent
			if lenient {
				dec = oracleLenient
				p = oracleFold(p)
			}
			levels := []string{p}
			for range oracleRounds {
				levels = append(levels, dec(levels[len(levels)-1]))
			}
			if dec(levels[oracleRounds]) != levels[oracleRounds] {
				return false, false
			}
			for k, s := range levels {
				if k > 0 && s == levels[k-1] {
					break // the same readings as the level before
				}
				for _, seps := range []string{"/", `/\`} {
					if oracleSegmentsIn(s, seps, dec, oracleRounds-k) {
						in = true
					}
				}
			}
		}
	}
	return in, true
}

var absoluteForm = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:(?://[^/]*)?(.*)$`)

// oraclePaths returns the rooted paths a target may stand for: the target
// without its query, and the path of an absolute-form target.
func oraclePaths(target string) []string {
	t, _, _ := strings.Cut(target, "?")
	out := []string{"/" + strings.TrimPrefix(t, "/")}
	if m := absoluteForm.FindStringSubmatch(t); m != nil {
		out = append(out, "/"+strings.TrimPrefix(m[1], "/"))
	}
	return out
}

// oracleSegmentsIn cuts s at any of seps, decodes each segment up to rounds
// more times, then tries every segment reading with empty segments kept and
// dropped.
func oracleSegmentsIn(s, seps string, dec func(string) string, rounds int) bool {
	segs := splitKeep(s[1:], seps)
	for i := range segs {
		for range rounds {
			segs[i] = dec(segs[i])
		}
	}
	for _, cut := range []bool{false, true} {
		for _, dropNUL := range []bool{false, true} {
			for _, trim := range []bool{false, true} {
				read := make([]string, len(segs))
				for i, seg := range segs {
					read[i] = oracleSegment(seg, cut, dropNUL, trim)
				}
				for _, collapse := range []bool{false, true} {
					if leadingPartIn(read, collapse) {
						return true
					}
				}
			}
		}
	}
	return false
}

// splitKeep splits s at every byte of seps, keeping empty fields.
func splitKeep(s, seps string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(seps, s[i]) >= 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// oracleSegment reads one decoded segment.
func oracleSegment(seg string, cut, dropNUL, trim bool) string {
	if cut {
		for _, c := range []string{";", "?", "#", "\x00"} {
			seg, _, _ = strings.Cut(seg, c)
		}
	}
	if dropNUL {
		seg = strings.Map(func(r rune) rune {
			if r == 0 {
				return -1
			}
			return r
		}, seg)
	}
	if trim {
		trimmed := strings.TrimRight(seg, ". ")
		if trimmed == "" {
			switch dots := strings.Count(seg, "."); {
			case dots == 1:
				trimmed = "."
			case dots >= 2:
				trimmed = ".."
			}
		}
		seg = trimmed
	}
	// A '/' decoded inside a segment stays inside it: hide it from the
	// string resolution below (a settled segment holds no "%2F" escape).
	return strings.ReplaceAll(seg, "/", "%2F")
}

// leadingPartIn joins the segments into a path and resolves every leading
// part of it (RFC 3986 §5.2.4); true if one lies under the prefix.
func leadingPartIn(segs []string, collapse bool) bool {
	var kept []string
	for _, s := range segs {
		if collapse && s == "" {
			continue
		}
		kept = append(kept, s)
	}
	for j := 1; j <= len(kept); j++ {
		r := strings.ToLower(removeDotSegments("/" + strings.Join(kept[:j], "/")))
		if r == "/.well-known/hoop" || strings.HasPrefix(r, "/.well-known/hoop/") {
			return true
		}
	}
	return false
}

// removeDotSegments is RFC 3986 §5.2.4, step by step.
func removeDotSegments(in string) string {
	out := ""
	pop := func() {
		if i := strings.LastIndexByte(out, '/'); i >= 0 {
			out = out[:i]
		} else {
			out = ""
		}
	}
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = "/" + in[3:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = "/" + in[4:]
			pop()
		case in == "/..":
			in = "/"
			pop()
		case in == "." || in == "..":
			in = ""
		default:
			i := strings.IndexByte(in[1:], '/')
			if i < 0 {
				out, in = out+in, ""
			} else {
				out, in = out+in[:i+1], in[i+1:]
			}
		}
	}
	return out
}

var (
	pctXX   = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)
	pctXXAt = regexp.MustCompile(`^%[0-9A-Fa-f]{2}`)
	pctUAt  = regexp.MustCompile(`^%[uU][0-9A-Fa-f]{4}`)
)

// oraclePercent decodes the valid %XX escapes of s once.
func oraclePercent(s string) string {
	return pctXX.ReplaceAllStringFunc(s, func(m string) string {
		b, _ := strconv.ParseUint(m[1:], 16, 8)
		return string([]byte{byte(b)})
	})
}

// oracleLenient decodes %XX and %uXXXX escapes once (left to right, neither
// inside the other), then folds.
func oracleLenient(s string) string {
	var b strings.Builder
	for s != "" {
		if m := pctUAt.FindString(s); m != "" {
			r, _ := strconv.ParseUint(m[2:], 16, 32)
			b.WriteRune(rune(r))
			s = s[len(m):]
			continue
		}
		if m := pctXXAt.FindString(s); m != "" {
			v, _ := strconv.ParseUint(m[1:], 16, 8)
			b.WriteByte(byte(v))
			s = s[len(m):]
			continue
		}
		b.WriteByte(s[0])
		s = s[1:]
	}
	return oracleFold(b.String())
}

// oracleFold reads overlong UTF-8 encodings of ASCII as ASCII, then NFKC,
// then maps each letter whose case folds onto ASCII to that ASCII letter.
func oracleFold(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		// Lead bytes of overlong forms: C0/C1 xx, E0 80-81 xx, F0 80 80-81 xx.
		var need int
		var v uint32
		switch c := s[i]; {
		case c == 0xC0 || c == 0xC1:
			need, v = 1, uint32(c&0x1F)
		case c == 0xE0 && i+1 < len(s) && s[i+1] < 0x82:
			need, v = 2, 0
		case c == 0xF0 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2] < 0x82:
			need, v = 3, 0
		}
		ok := need > 0 && i+need < len(s)
		for j := 1; ok && j <= need; j++ {
			if s[i+j]&0xC0 != 0x80 {
				ok = false
			} else {
				v = v<<6 | uint32(s[i+j]&0x3F)
			}
		}
		if ok && v < 0x80 {
			b = append(b, byte(v))
			i += need
			continue
		}
		b = append(b, s[i])
	}
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			return r
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf {
				return f
			}
		}
		return r
	}, norm.NFKC.String(string(b)))
}
