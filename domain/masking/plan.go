package masking

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Plan is the masking of one statement's results, from Set.For. It is
// used by one goroutine (the listener's relay of that statement's
// answer) and counts what it masked.
type Plan struct {
	rules  []*rule
	counts []int
	kinds  []kindRule // every entity some rule asks for, first rule wins
	fields map[string]*Field
	// Uninspected counts the values sent unread under best_effort.
	Uninspected int
}

// kindsOf returns every entity some rule asks for, each with the first
// rule that names it, in the order overlaps are settled (entities).
func kindsOf(rules []*rule) []kindRule {
	var out []kindRule
	for _, e := range entities {
		for i, r := range rules {
			if slices.Contains(r.entities, e) {
				out = append(out, kindRule{e, i})
				break
			}
		}
	}
	return out
}

// Field is how the values at one column or field path are masked: by a
// column rule as a whole, or by the entities found inside them.
type Field struct {
	plan  *Plan
	path  string
	whole int // index of the column rule that masks the value whole, or -1
	kinds []kindRule
}

// Field returns how values at path are masked, or nil when no rule of the
// plan touches them (the listener passes them through unread).
//
// A path is a result column as [table, column] (table "" when the
// protocol does not name it: postgres gives only an OID), a MongoDB
// document field or a JSON body field as its keys from the root, array
// indexes left out, or nil for a value with no name (a text body). A
// column rule's glob matches a tail of the path (pathPattern.matches). A
// nil *Plan returns nil.
func (p *Plan) Field(path ...string) *Field {
	if p == nil {
		return nil
	}
	key := strings.Join(path, "\x00")
	if f, ok := p.fields[key]; ok {
		return f
	}
	f := &Field{plan: p, path: strings.TrimPrefix(strings.Join(path, "."), "."), whole: -1, kinds: p.kinds}
	if len(path) > 0 {
	rules:
		for i, r := range p.rules {
			for _, c := range r.columns {
				if c.matches(path) {
					f.whole = i
					break rules
				}
			}
		}
	}
	if f.whole < 0 && len(f.kinds) == 0 {
		f = nil
	}
	if p.fields == nil {
		p.fields = map[string]*Field{}
	}
	if len(p.fields) < 4096 { // a document with ever new keys does not grow it without bound
		p.fields[key] = f
	}
	return f
}

// Whole reports whether a column rule masks the field's values whole: a
// value of a type that cannot hold the masked text (a number, a date)
// becomes NULL, or the listener refuses the result where its protocol
// cannot send NULL there.
func (f *Field) Whole() bool { return f != nil && f.whole >= 0 }

// Text masks one text value: the whole value under a column rule, else
// each entity found in it. It returns the value to send and whether it
// differs from v; the masked text is appended to dst[:0] (pass nil to
// allocate). v is not modified.
func (f *Field) Text(dst, v []byte) ([]byte, bool) {
	if f == nil {
		return v, false
	}
	if f.whole >= 0 {
		f.plan.counts[f.whole]++
		return f.plan.rules[f.whole].apply(dst[:0], v, ""), true
	}
	spans := findSpans(v, f.kinds)
	if dec, ok := unescapeText(v); ok {
		// JSON kept as text, or HTML: a \u escape or a character
		// reference can split an entity that the client's decoder joins
		// (alice\u0040example.com, alice&#64;example.com). The value is
		// then masked as decoded (still the same JSON string, or HTML).
		if ds := findSpans(dec, f.kinds); len(ds) > 0 {
			v, spans = dec, ds
		}
	}
	if len(spans) == 0 {
		return v, false
	}
	out := f.replace(dst[:0], v, spans)
	// Masking an entity can leave the text glued to it standing alone as
	// another ("a@b.co4111111111111111": the card was part of a word until
	// the email before it became '*'), so the result is read again until
	// nothing is found; each pass masks at least one letter or digit.
	for pass := 0; pass < 8; pass++ {
		again := findSpans(out, f.kinds)
		if len(again) == 0 {
			break
		}
		out = f.replace(nil, out, again)
	}
	return out, true
}

// replace appends v to dst with each span masked by its rule, counting it.
func (f *Field) replace(dst, v []byte, spans []span) []byte {
	at := 0
	for _, sp := range spans {
		dst = append(dst, v[at:sp.start]...)
		dst = f.plan.rules[sp.rule].apply(dst, v[sp.start:sp.end], sp.entity)
		f.plan.counts[sp.rule]++
		at = sp.end
	}
	return append(dst, v[at:]...)
}

// NonText decides a value of a type that cannot hold masked text (a
// number, a date, a UUID), given as the text the server would print for
// it: true when it must be sent as NULL instead, because a column rule
// masks the field whole or an entity is found in that text (a card number
// kept in a bigint column).
func (f *Field) NonText(v []byte) bool {
	if f == nil {
		return false
	}
	if f.whole >= 0 {
		f.plan.counts[f.whole]++
		return true
	}
	spans := findSpans(v, f.kinds)
	for _, sp := range spans {
		f.plan.counts[sp.rule]++
	}
	return len(spans) > 0
}

// Unreadable decides a value the listener cannot read (its type is not
// known, it is over the size the listener inspects, its encoding cannot be
// decoded); what says why, for the error. Under a column rule the value
// becomes NULL (null true): nothing need be read to hide it whole.
// Otherwise, when a rule that must look inside it is strict, err is an
// *UnreadableError and the listener refuses the rest of the result with a
// native error; under best_effort the value is sent as it is and counted
// in Plan.Uninspected.
func (f *Field) Unreadable(what string) (null bool, err error) {
	if f == nil {
		return false, nil
	}
	if f.whole >= 0 {
		f.plan.counts[f.whole]++
		return true, nil
	}
	for _, k := range f.kinds {
		if r := f.plan.rules[k.rule]; r.strict {
			return false, &UnreadableError{Rule: r.name, Field: f.path, What: what}
		}
	}
	f.plan.Uninspected++
	return false, nil
}

// Unreadable decides a whole result the listener cannot read (an http
// body over the size it inspects, in an encoding it cannot decode, or only
// a part of one), where no field path is known: any rule might have to
// look inside. It returns an *UnreadableError naming the first strict rule
// of the plan (the listener refuses the result with its native error), or
// nil when every rule is best_effort (the result is sent as it is and
// counted in Uninspected). A nil *Plan returns nil.
func (p *Plan) Unreadable(what string) error {
	if p == nil {
		return nil
	}
	for _, r := range p.rules {
		if r.strict {
			return &UnreadableError{Rule: r.name, What: what}
		}
	}
	p.Uninspected++
	return nil
}

// UnreadableError is a value a strict masking rule had to read and could
// not: the listener sends it to the client as its protocol's error and
// withholds the rest of the result.
type UnreadableError struct {
	Rule  string // the masking rule
	Field string // the column or field path, "" for a body
	What  string // why it could not be read
}

func (e *UnreadableError) Error() string {
	where := ""
	if e.Field != "" {
		where = " of " + e.Field
	}
	return fmt.Sprintf("hoop: the result was withheld: masking rule %q could not read a value%s (%s); "+
		"it masks in strict mode, so nothing is sent unread", e.Rule, where, e.What)
}

// Count is how many values one rule masked in one statement's results.
type Count struct {
	Rule   string
	Values int
}

// Counts returns, per rule of the plan that masked something, how many
// values it masked so far, in the rules' order.
func (p *Plan) Counts() []Count {
	if p == nil {
		return nil
	}
	var out []Count
	for i, n := range p.counts {
		if n > 0 {
			out = append(out, Count{p.rules[i].name, n})
		}
	}
	return out
}

// Masked is the number of values masked so far.
func (p *Plan) Masked() int {
	if p == nil {
		return 0
	}
	n := 0
	for _, c := range p.counts {
		n += c
	}
	return n
}

// unescapeText returns v with its JSON \uXXXX escapes (a surrogate pair
// as one character) and its HTML character references (&#64;, &#x40;,
// &commat;, &period;) decoded, and whether it held one. An escape of a
// quote, a backslash, '<', '>', '&' or a control character is kept, so
// that a JSON string stays one and HTML stays HTML; so is a \u after an
// escaped backslash (\\u0040 is the text \u0040) and a lone surrogate.
func unescapeText(v []byte) ([]byte, bool) {
	if !bytes.Contains(v, []byte(`\u`)) && !bytes.Contains(v, []byte("&#")) &&
		!bytes.Contains(v, []byte("&commat;")) && !bytes.Contains(v, []byte("&period;")) {
		return nil, false
	}
	var out []byte
	found := false
	for i := 0; i < len(v); i++ {
		if v[i] == '&' {
			if r, n := charRef(v[i:]); n > 0 && keptAsIs(r) {
				out, found = utf8.AppendRune(out, r), true
				i += n - 1
				continue
			}
		}
		if v[i] != '\\' {
			out = append(out, v[i])
			continue
		}
		if i+1 < len(v) && v[i+1] != 'u' { // another escape: copied whole
			out = append(out, v[i], v[i+1])
			i++
			continue
		}
		r, n := hex4(v, i)
		if n == 0 {
			out = append(out, v[i])
			continue
		}
		if utf16.IsSurrogate(r) {
			r2, n2 := hex4(v, i+n)
			if r = utf16.DecodeRune(r, r2); n2 == 0 || r == utf8.RuneError {
				out = append(out, v[i])
				continue
			}
			n += n2
		}
		if !keptAsIs(r) {
			out = append(out, v[i:i+n]...)
		} else {
			out, found = utf8.AppendRune(out, r), true
		}
		i += n - 1
	}
	return out, found
}

// hex4 reads the escape \uXXXX at v[i:]: its code unit and length 6, or
// length 0 when there is none.
func hex4(v []byte, i int) (rune, int) {
	if i+6 > len(v) || v[i] != '\\' || v[i+1] != 'u' {
		return 0, 0
	}
	var r rune
	for _, c := range v[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 6
}

// keptAsIs reports whether r may replace its escape: not a control
// character, a quote, a backslash or an HTML delimiter.
func keptAsIs(r rune) bool {
	switch r {
	case '"', '\'', '\\', '<', '>', '&':
		return false
	}
	return r >= 0x20 && r != utf8.RuneError && !utf16.IsSurrogate(r)
}

// charRef reads the HTML character reference at the start of v (&#64;,
// &#x40;, &commat;, &period;): its character and length, or length 0.
func charRef(v []byte) (rune, int) {
	switch {
	case bytes.HasPrefix(v, []byte("&commat;")):
		return '@', len("&commat;")
	case bytes.HasPrefix(v, []byte("&period;")):
		return '.', len("&period;")
	}
	if len(v) < 4 || v[1] != '#' {
		return 0, 0
	}
	base, i := 10, 2
	if v[2] == 'x' || v[2] == 'X' {
		base, i = 16, 3
	}
	var r rune
	start := i
	for ; i < len(v) && i-start < 7; i++ {
		c := v[i]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		case c == ';' && i > start:
			if r > utf8.MaxRune {
				return 0, 0
			}
			return r, i + 1
		default:
			return 0, 0
		}
		r = r*rune(base) + rune(d)
	}
	return 0, 0
}
