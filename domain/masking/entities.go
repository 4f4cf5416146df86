package masking

import (
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
	may  func(s string, st *textStats) bool
	re   *regexp.Regexp
	// valid, when set, is asked of each candidate: text is the whole
	// value, m the candidate's submatch offsets in it (m[0]:m[1] whole).
	valid func(text string, m []int) bool
}

// textStats is what one pass over a text learns for the entities' cheap
// tests.
type textStats struct {
	digits int
	at     bool
	dot    bool
	colon  bool
	dash   bool
}

func statsOf(s string) textStats {
	var st textStats
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
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
		may:  func(s string, st *textStats) bool { return st.dash && strings.Contains(s, "-----BEGIN ") },
		re:   regexp.MustCompile(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----(?s:.*?)(-----END ([A-Z0-9]+ )*PRIVATE KEY-----|$)`),
	},
	{
		name:  JWT,
		may:   func(s string, st *textStats) bool { return st.dot && strings.Contains(s, "eyJ") },
		re:    regexp.MustCompile(`\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*`),
		valid: func(t string, m []int) bool { return jwtValid(t[m[0]:m[1]]) },
	},
	{
		name: AWSAccessKey,
		may: func(s string, st *textStats) bool {
			return strings.Contains(s, "AKIA") || strings.Contains(s, "ASIA") || strings.Contains(s, "A3T") ||
				strings.Contains(s, "ABIA") || strings.Contains(s, "ACCA")
		},
		re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b`),
	},
	{
		name: EmailAddress,
		may:  func(_ string, st *textStats) bool { return st.at && st.dot },
		// Local parts and domains may hold any letter (RFC 6531, 5890).
		re: regexp.MustCompile(`[\p{L}\p{N}._%+-]+@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?` +
			`(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*\.\p{L}{2,63}`),
	},
	{
		name:  IBANCode,
		may:   func(_ string, st *textStats) bool { return st.digits >= 4 },
		re:    regexp.MustCompile(`\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}\b`),
		valid: func(t string, m []int) bool { return ibanValid(strings.ReplaceAll(t[m[0]:m[1]], " ", "")) },
	},
	{
		name: CreditCard,
		may:  func(_ string, st *textStats) bool { return st.digits >= 13 },
		re:   regexp.MustCompile(`\b[0-9](?:[ -]?[0-9]){12,18}\b`),
		valid: func(t string, m []int) bool {
			d := onlyDigits(t[m[0]:m[1]])
			return cardPrefix(d) && luhn(d)
		},
	},
	{
		name: USSSN,
		may:  func(_ string, st *textStats) bool { return st.digits >= 9 },
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
		may:  func(_ string, st *textStats) bool { return (st.dot && st.digits >= 4) || st.colon },
		re:   regexp.MustCompile(`\b(?:[0-9]{1,3}\.){3}[0-9]{1,3}\b|(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:[0-9]{1,3}\.){3}[0-9]{1,3})?`),
		valid: func(t string, m []int) bool {
			s := t[m[0]:m[1]]
			if !standsAlone(t, m[0], m[1]) {
				return false // std::cmp, a::b in code, a time's tail
			}
			a, err := netip.ParseAddr(s)
			return err == nil && (a.Is4() || a.Is6() && s != "::")
		},
	},
	{
		name: PhoneNumber,
		may:  func(_ string, st *textStats) bool { return st.digits >= 7 },
		re:   regexp.MustCompile(`(?:\+[0-9]{1,3}[ .-]?)?(?:\([0-9]{1,4}\)[ .-]?)?[0-9]{2,4}(?:[ .-][0-9]{2,5}){1,4}\b|\+[0-9]{8,15}\b`),
		valid: func(t string, m []int) bool {
			s := t[m[0]:m[1]]
			if !standsAlone(t, m[0], m[1]) {
				return false
			}
			if n := len(onlyDigits(s)); n < 7 || n > 15 {
				return false
			}
			region := "US"
			if strings.HasPrefix(s, "+") {
				region = ""
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
func findSpans(s string, kinds []kindRule) []span {
	st := statsOf(s)
	var out []span
	for _, k := range kinds {
		e := k.e
		if !e.may(s, &st) {
			continue
		}
		for _, m := range e.re.FindAllStringSubmatchIndex(s, -1) {
			start, end := m[0], m[1]
			if start == end {
				continue
			}
			if e.valid != nil && !e.valid(s, m) {
				continue
			}
			if overlaps(out, start, end) {
				continue
			}
			out = append(out, span{start, end, e.name, k.rule})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// kindRule pairs an entity with the rule (by index) that masks it.
type kindRule struct {
	e    *entity
	rule int
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
func standsAlone(t string, start, end int) bool {
	glued := func(c byte) bool {
		return isDigit(c) || isUpper(c) || (c >= 'a' && c <= 'z') || c == '_' || c == ':'
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
