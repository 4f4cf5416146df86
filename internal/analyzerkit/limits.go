package analyzerkit

import (
	"fmt"
	"strings"
	"unicode"
)

// CheckSize returns an error wrapping ErrUncheckable for a text over
// maxSize bytes (the longest its analyzer parses), nil otherwise.
func CheckSize(text string, maxSize int) error {
	if len(text) > maxSize {
		return fmt.Errorf("%w: the text is %d bytes, over the %d the Sidecar analyses", ErrUncheckable, len(text), maxSize)
	}
	return nil
}

// CheckDepth returns an error wrapping ErrUncheckable when a text nests
// deeper than maxDepth, as bound (the analyzer's depth bound, from its
// tokens) counts it. n is a cheaper bound of the same depth (the tokens or
// bytes of the text, each adding at most one level): bound runs only when
// n reaches maxDepth.
func CheckDepth(n, maxDepth int, bound func() int) error {
	if n < maxDepth {
		return nil
	}
	if d := bound(); d > maxDepth {
		return fmt.Errorf("%w: it nests about %d levels deep, over the %d the Sidecar analyses", ErrUncheckable, d, maxDepth)
	}
	return nil
}

// Depth is an upper bound, up to a small factor, of how deep a parser
// descends for a text, counted token by token by an analyzer that knows
// which token does what: each bracket level holds a chain of tokens that
// may each add a level (Link); a comma ends the chain at its level (Chain);
// a close bracket ends its level (Close); chains that cross commas (set
// operations, joins) count for the whole statement (Global); a new
// statement starts from nothing (Next). The zero value is ready.
type Depth struct {
	levels           []int
	sum, global, max int
}

// Open counts an open bracket: one more level, its chain empty.
func (d *Depth) Open() {
	d.init()
	d.levels = append(d.levels, 0)
	d.note()
}

// Close counts a close bracket: its level and chain end (none at the top).
func (d *Depth) Close() {
	d.init()
	if len(d.levels) > 1 {
		d.Chain()
		d.levels = d.levels[:len(d.levels)-1]
	}
	d.note()
}

// Chain counts a token that ends the chain at its level (a comma).
func (d *Depth) Chain() {
	d.init()
	top := len(d.levels) - 1
	d.sum -= d.levels[top]
	d.levels[top] = 0
	d.note()
}

// Link counts a token that may add a level to the chain at its level (an
// operator, a nesting keyword).
func (d *Depth) Link() {
	d.init()
	d.levels[len(d.levels)-1]++
	d.sum++
	d.note()
}

// Global counts a token whose chain crosses commas (UNION, JOIN): one
// level for the rest of the statement.
func (d *Depth) Global() {
	d.init()
	d.global++
	d.note()
}

// Next counts a statement separator: the next statement starts from the
// top level, its chains empty.
func (d *Depth) Next() {
	d.init()
	d.levels, d.sum, d.global = d.levels[:1], 0, 0
	d.levels[0] = 0
}

// Max returns the deepest level counted.
func (d *Depth) Max() int { return d.max }

func (d *Depth) init() {
	if d.levels == nil {
		d.levels = []int{0}
	}
}

func (d *Depth) note() { d.max = max(d.max, d.sum+d.global+len(d.levels)) }

// NodeActions names a statement after its parse node's type, as the TiDB
// and pg_query trees both name them: CreateXStmt → CREATE, CREATE_X;
// AlterXStmt → ALTER, ALTER_X; DropXStmt → DROP, DROP_X; any other XStmt →
// X (CamelCase to SNAKE_CASE). fix, when not nil, rewrites the joined name
// (PostgreSQL's CHECK_POINT is CHECKPOINT). An empty name has no actions.
func NodeActions(name string, fix *strings.Replacer) []string {
	words := splitCamel(strings.TrimSuffix(name, "Stmt"))
	if len(words) == 0 {
		return nil
	}
	full := strings.Join(words, "_")
	if fix != nil {
		full = fix.Replace(full)
	}
	switch words[0] {
	case "CREATE", "ALTER", "DROP":
		return []string{words[0], full}
	}
	return []string{full}
}

// splitCamel splits CamelCase s into its words, upper case: a word starts
// at an upper-case letter after one that is not.
func splitCamel(s string) []string {
	var words []string
	start := 0
	for i := 1; i < len(s); i++ {
		if unicode.IsUpper(rune(s[i])) && !unicode.IsUpper(rune(s[i-1])) {
			words = append(words, strings.ToUpper(s[start:i]))
			start = i
		}
	}
	if s != "" {
		words = append(words, strings.ToUpper(s[start:]))
	}
	return words
}
