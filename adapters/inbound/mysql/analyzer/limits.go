package analyzer

import (
	"context"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// ErrUncheckable is wrapped by Result.Err when the analyzer cannot read a
// text that MySQL may still run: too large, nested too deep, or splitting
// into other statements under another sql_mode. Unlike a syntax error
// (UNKNOWN, which the upstream usually refuses too), such a text must be
// refused by the listener.
var ErrUncheckable = analyzerkit.ErrUncheckable

// MaxSize is the longest text the analyzer parses, in bytes. Parsing costs
// about 100 times the text in memory (a 5 MiB multi-row INSERT allocated
// 560 MiB) and about 0.25 s of CPU per MiB. A larger text is not parsed:
// it is read by the bulk reader (bulk.go) when it is nothing but
// INSERT … VALUES statements of literals, and is uncheckable otherwise.
const MaxSize = 8 << 20

// MaxDepth bounds how deeply a text may nest, as depthBound counts it. The
// parse tree is walked recursively on the goroutine's stack: a text of
// 8 MiB nesting a million levels would take gigabytes of stack, and the Go
// runtime ends the whole process when a stack passes its limit.
const MaxDepth = 10000

// budget bounds the bytes of large texts (64 KiB and more,
// analyzerkit.LargeText) that the parser works on at once, across every
// connection; a text waits for its turn, until its client leaves.
var budget = analyzerkit.NewBudget(MaxSize, analyzerkit.LargeText)

// AnalyzeModeContext is AnalyzeMode for a client whose leaving ends ctx: a
// large text waiting for its turn to be parsed (budget) then stops waiting,
// and its result wraps ErrUncheckable. A panic while analysing (classifying
// a tree the parser built oddly) yields UNKNOWN and Err saying so.
func AnalyzeModeContext(ctx context.Context, sql, currentDB string, m Mode) Result {
	return analyzerkit.Analyze(ctx, budget, sql, testHook, func() Result { return analyzeBounded(ctx, sql, currentDB, m) },
		func(err error) Result { return unknown(sql, err) })
}

// testHook, when set (by tests only), runs before each analysis.
var testHook func(sql string)

// checkDepth refuses a text nested deeper than MaxDepth (every token adds
// at most one level).
func checkDepth(toks []token, sql string) error {
	return analyzerkit.CheckDepth(len(toks), MaxDepth, func() int { return depthBound(toks, sql) })
}

// depthBound returns an upper bound, up to a small factor, of the depth of
// the parse tree of a text, from its tokens (analyzerkit.Depth). Each
// operator or keyword may add a level to a left-deep chain (1+1+…, a OR b
// OR …, NOT NOT …) and links at its bracket level; a comma starts a new
// chain at its level; an open bracket counts one more level;
// UNION/EXCEPT/INTERSECT and JOIN chains cross commas and count for the
// whole statement; a semicolon starts the next statement. Literals and
// names count nothing.
func depthBound(toks []token, sql string) int {
	var d analyzerkit.Depth
	for _, t := range toks {
		switch t.kind {
		case tokSemicolon:
			d.Next()
		case tokWord:
			switch w := sql[t.start:t.end]; {
			case eqFold(w, "UNION") || eqFold(w, "EXCEPT") || eqFold(w, "INTERSECT") || eqFold(w, "JOIN"):
				d.Global()
			case isOperatorWord(w):
				d.Link()
			}
		case tokOp:
			switch sql[t.start] {
			case '(', '[', '{':
				d.Open()
			case ')', ']', '}':
				d.Close()
			case ',':
				d.Chain()
			case '.':
			default:
				d.Link()
			}
		}
	}
	return d.Max()
}

// isOperatorWord reports keywords that chain expressions: AND, OR, XOR,
// NOT, IS, IN, LIKE, BETWEEN, CASE/WHEN, DIV, MOD, REGEXP, COLLATE, INTERVAL,
// BINARY.
func isOperatorWord(w string) bool {
	if len(w) > 8 {
		return false
	}
	for _, k := range [...]string{"AND", "OR", "XOR", "NOT", "IS", "IN", "LIKE", "BETWEEN", "CASE", "WHEN", "DIV", "MOD", "REGEXP", "RLIKE", "COLLATE", "INTERVAL", "BINARY", "ESCAPE", "SELECT"} {
		if eqFold(w, k) {
			return true
		}
	}
	return false
}

// eqFold reports whether a, in any ASCII case, is the upper-case b.
func eqFold(a, b string) bool { return analyzerkit.UpperEq(a, b) }

// HoldBudget takes the whole parse budget until release is called, for
// listener tests (analyzerkit.Budget.Hold).
func HoldBudget() (release func()) { return budget.Hold() }
