package masking

import (
	"bytes"
	"net/netip"
	"regexp"
	"sort"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// The entity names, as Presidio names them (docs/masking.md, "Entities").
const (
	EmailAddress = "EMAIL_ADDRESS"
	CreditCard   = "CREDIT_CARD"
	IBANCode     = "IBAN_CODE"
	USSSN        = "US_SSN"
	PhoneNumber  = "PHONE_NUMBER"
	IPAddress    = "IP_ADDRESS"
	AWSAccessKey = "AWS_ACCESS_KEY"
	JWT          = "JWT"
	PrivateKey   = "PRIVATE_KEY"
)

// entity finds one kind of value inside a text: a cheap test that the text
// may hold one (so most values cost one pass), a pattern for candidates,
// and a guard that a candidate is one (a checksum where one exists).
type entity struct {
	name string
	may  func(v []byte, st textStats) bool
	re   *regexp.Regexp
	// valid, when set, is asked of each candidate: text is the whole
	// value, m the candidate's submatch offsets in it (m[0]:m[1] whole).
	valid func(text string, m []int) bool
	// within, when set, is the longest candidate in bytes: a candidate the
	// guard refuses is searched for shorter ones that start and end at its
	// separators (a card number followed by more digits, an IBAN followed by
	// a capitalised word), each no longer than within.
	within int
}

// textStats is what one pass over a text learns for the entities' cheap
// tests.
type textStats struct {
	digits int
	run    int // most digits in one run joined by single ' ', '-' or '.'
	phone  int // most digits in one run joined by up to two of ' ', '-', '.', '(', ')'
	plus   bool
	iban   bool // two capitals then two digits somewhere
	at     bool
	dot    bool
	colon  bool
	dash   bool
}

func statsOf(s []byte) textStats {
	var st textStats
	run, phone, gap := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			run++
			st.run = max(st.run, run)
		case (c == ' ' || c == '-' || c == '.') && i > 0 && isDigit(s[i-1]) && i+1 < len(s) && isDigit(s[i+1]):
		default:
			run = 0
		}
		switch {
		case isDigit(c):
			phone, gap = phone+1, 0
			st.phone = max(st.phone, phone)
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')':
			if gap++; gap > 2 {
				phone = 0
			}
		case c == '+':
			st.plus, phone, gap = true, 0, 0
		default:
			phone, gap = 0, 0
		}
		if !st.iban && i+3 < len(s) && isUpper(c) && isUpper(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
			st.iban = true
		}
		switch {
		case isDigit(c):
			st.digits++
		case c == '@':
			st.at = true
		case c == '.':
			st.dot = true
		case c == ':':
			st.colon = true
		case c == '-':
			st.dash = true
		}
	}
	return st
}

// entities lists every entity in the order overlaps are settled: a span
// found by an earlier entity wins over any later one it overlaps (a card
// number is not also read as a phone number).
var entities = []*entity{
	{
		name: PrivateKey,
		may:  func(v []byte, st textStats) bool { return st.dash && bytes.Contains(v, []byte("-----BEGIN ")) },
		re:   regexp.MustCompile(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----(?s:.*?)(-----END ([A-Z0-9]+ )*PRIVATE KEY-----|$)`),
	},
	{
		name:  JWT,
		may:   func(v []byte, st textStats) bool { return st.dot && bytes.Contains(v, []byte("eyJ")) },
		re:    regexp.MustCompile(`\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*`),
		valid: func(t string, m []int) bool { return jwtValid(t[m[0]:m[1]]) },
	},
	{
		name: AWSAccessKey,
		may: func(v []byte, st textStats) bool {
			return st.digits > 0 && (bytes.Contains(v, []byte("AKIA")) || bytes.Contains(v, []byte("ASIA")) ||
				bytes.Contains(v, []byte("A3T")) || bytes.Contains(v, []byte("ABIA")) || bytes.Contains(v, []byte("ACCA")))
		},
		re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b`),
	},
	{
		name: EmailAddress,
		may:  func(_ []byte, st textStats) bool { return st.at && st.dot },
		// Local parts and domains may hold any letter (RFC 6531, 5890).
		// An apostrophe may join two runs of it (o'brien@, RFC 5322 atext),
		// but not open one ('alice@… in a quoted string).
		re: regexp.MustCompile(`[\p{L}\p{N}._%+-]+(?:'[\p{L}\p{N}._%+-]+)*@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?` +
			`(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*\.\p{L}{2,63}`),
	},
	{
		name:   IBANCode,
		may:    func(_ []byte, st textStats) bool { return st.iban },
		re:     regexp.MustCompile(`\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,}\b`),
		within: 34 * 2,
		valid:  func(t string, m []int) bool { return ibanValid(strings.ReplaceAll(t[m[0]:m[1]], " ", "")) },
	},
	{
		name:   CreditCard,
		may:    func(_ []byte, st textStats) bool { return st.run >= 13 },
		re:     regexp.MustCompile(`\b[0-9](?:[ -]?[0-9]){12,}\b`),
		within: 19 * 2,
		valid: func(t string, m []int) bool {
			d := onlyDigits(t[m[0]:m[1]])
			return cardPrefix(d) && luhn(d)
		},
	},
	{
		name: USSSN,
		may:  func(_ []byte, st textStats) bool { return st.run >= 9 },
		re:   regexp.MustCompile(`\b([0-9]{3})([- ])([0-9]{2})([- ])([0-9]{4})\b`),
		valid: func(t string, m []int) bool {
			if t[m[4]:m[5]] != t[m[8]:m[9]] { // the same separator twice
				return false
			}
			return ssnValid(t[m[2]:m[3]], t[m[6]:m[7]], t[m[10]:m[11]])
		},
	},
	{
		name: IPAddress,
		may:  func(_ []byte, st textStats) bool { return (st.dot && st.digits >= 4) || st.colon },
		re:   regexp.MustCompile(`\b(?:[0-9]{1,3}\.){3}[0-9]{1,3}\b|(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:[0-9]{1,3}\.){3}[0-9]{1,3}|[0-9A-Fa-f]{1,4})?`),
		valid: func(t string, m []int) bool {
			s := t[m[0]:m[1]]
			// A dotted quad may follow a ':' (ip:10.0.0.1) and carry a
			// port (10.0.0.1:8080); an IPv6 match may not touch one.
			if !standsAloneBy(t, m[0], m[1], strings.IndexByte(s, ':') >= 0) {
				return false // std::cmp, a::b in code, a time's tail
			}
			a, err := netip.ParseAddr(s)
			return err == nil && (a.Is4() || a.Is6() && s != "::")
		},
	},
	{
		name:   PhoneNumber,
		may:    func(_ []byte, st textStats) bool { return st.phone >= 10 || st.plus && st.phone >= 8 },
		re:     regexp.MustCompile(`(?:\+[0-9]{1,3}[ .-]?)?(?:\([0-9]{1,4}\)[ .-]?)?[0-9]{2,4}(?:[ .-][0-9]{2,5}){1,4}\b|\+[0-9]{8,15}\b`),
		within: 32,
		valid: func(t string, m []int) bool {
			s := t[m[0]:m[1]]
			if !standsAlone(t, m[0], m[1]) {
				return false
			}
			// Without a country code a number is read as a US one: 10
			// digits, or 11 with the leading 1 (NANP); with one, E.164's
			// 8 to 15. Cheap, before the library's full check.
			d, region := onlyDigits(s), "US"
			if strings.HasPrefix(s, "+") {
				region = ""
				if len(d) < 8 || len(d) > 15 {
					return false
				}
			} else if len(d) != 10 && !(len(d) == 11 && d[0] == '1') {
				return false
			}
			num, err := phonenumbers.Parse(s, region)
			return err == nil && phonenumbers.IsValidNumber(num)
		},
	},
}

// EntityNames are the entities a rule may name, in the order overlaps are
// settled.
func EntityNames() []string {
	out := make([]string, len(entities))
	for i, e := range entities {
		out[i] = e.name
	}
	return out
}

func entityByName(name string) *entity {
	for _, e := range entities {
		if e.name == name {
			return e
		}
	}
	return nil
}

// span is one entity found in a text: s[start:end].
type span struct {
	start, end int
	entity     string
	rule       int // index of the rule that masks it in the field's list
}

// findSpans returns the entities of the given kinds (each with the rule
// index that asked for it) found in s, without overlaps, in text order.
func findSpans(v []byte, kinds []kindRule) []span {
	st := statsOf(v)
	var s string // made once, when some entity may be there
	var out []span
	for _, k := range kinds {
		e := k.e
		if !e.may(v, st) {
			continue
		}
		if s == "" {
			s = string(v)
		}
		for _, m := range e.re.FindAllStringSubmatchIndex(s, -1) {
			start, end := m[0], m[1]
			if start == end || covered(out, start, end) {
				continue // a span found before holds it whole: nothing to guard
			}
			if e.valid == nil || e.valid(s, m) {
				if !overlaps(out, start, end) {
					out = append(out, span{start, end, e.name, k.rule})
				}
				continue
			}
			if e.within > 0 {
				out = e.shorter(s, start, end, k.rule, out)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// shorter appends to out the candidates inside s[start:end] that the
// guard accepts, left to right, each the longest that starts after a
// separator (or at start) and ends before one (or at end), no longer than
// e.within bytes and overlapping nothing found before.
func (e *entity) shorter(s string, start, end, rule int, out []span) []span {
	sep := func(c byte) bool { return c == ' ' || c == '-' || c == '.' }
	for a := start; a < end; a++ {
		if sep(s[a]) || (a > start && !sep(s[a-1])) {
			continue
		}
		best := -1
		for b := a + 1; b <= end && b-a <= e.within; b++ {
			if (b == end || sep(s[b])) && !sep(s[b-1]) && e.valid(s, []int{a, b}) {
				best = b
			}
		}
		if best > 0 && !overlaps(out, a, best) {
			out = append(out, span{a, best, e.name, rule})
			a = best
		}
	}
	return out
}

// kindRule pairs an entity with the rule (by index) that masks it.
type kindRule struct {
	e    *entity
	rule int
}

func covered(spans []span, start, end int) bool {
	for _, sp := range spans {
		if sp.start <= start && end <= sp.end {
			return true
		}
	}
	return false
}

func overlaps(spans []span, start, end int) bool {
	for _, sp := range spans {
		if start < sp.end && sp.start < end {
			return true
		}
	}
	return false
}

// standsAlone reports whether t[start:end] is neither preceded nor
// followed by a letter, digit, '_', ':' or '.' glued to it (a part of a
// longer token is not an entity of its own).
func standsAlone(t string, start, end int) bool { return standsAloneBy(t, start, end, true) }

// standsAloneBy is standsAlone, with ':' glued only when colon is set.
func standsAloneBy(t string, start, end int, colon bool) bool {
	glued := func(c byte) bool {
		return isDigit(c) || isUpper(c) || (c >= 'a' && c <= 'z') || c == '_' || c == ':' && colon
	}
	if start > 0 && glued(t[start-1]) {
		return false
	}
	if end < len(t) && (glued(t[end]) || t[end] == '.' && end+1 < len(t) && isDigit(t[end+1])) {
		return false
	}
	return true
}

func onlyDigits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
