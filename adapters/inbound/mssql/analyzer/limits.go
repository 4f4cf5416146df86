package analyzer

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// ErrUncheckable is wrapped by Result.Err when the analyzer cannot read a
// text that SQL Server may still run: too large, or nested too deep. Unlike
// a syntax error (Unknown, which the server usually refuses too), such a
// text must be refused by the listener.
var ErrUncheckable = analyzerkit.ErrUncheckable

// MaxSize is the longest text the analyzer parses, in bytes. The ANTLR
// parser costs about 30 times the text in memory and, warm, about 1 s of
// CPU per MiB of typical SQL (bench_test.go); larger texts are
// uncheckable: bulk loads belong in BULK INSERT from a file or smaller
// batches.
const MaxSize = 4 << 20

// MaxDepth bounds how deeply a text may nest, as depthBound counts it. The
// parser descends recursively on the goroutine's stack (tens of frames per
// bracket), and the Go runtime ends the whole process when a stack passes
// its limit. SQL Server itself refuses nesting beyond a few hundred levels.
const MaxDepth = 1000

// budget bounds the bytes of large texts (64 KiB and more,
// analyzerkit.LargeText) that the parser works on at once, across every
// connection; a text waits for its turn, until its client leaves.
var budget = analyzerkit.NewBudget(MaxSize, analyzerkit.LargeText)

// checkLimits refuses a text over MaxSize before it is read.
func checkLimits(text string) error {
	if err := analyzerkit.CheckSize(text, MaxSize); err != nil {
		return err
	}
	if oddLineEnd(text) {
		return errOddLineEnd
	}
	return nil
}

var errOddLineEnd = errors.New("a -- comment holds a character that some readers take for a line end (NEL, U+2028, U+2029, vertical tab, form feed)")

// oddLineEnd reports whether a "--" comment of text (or what looks like
// one: inside a string too) holds a character other than CR and LF that
// some readers take for the end of a line. The analyzer ends such a
// comment at CR or LF only; should SQL Server end it earlier, the rest of
// the line would run unseen, so such a text is Unknown (fail closed).
func oddLineEnd(text string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], "--")
		if j < 0 {
			return false
		}
		i += j + 2
		line := text[i:]
		if k := strings.IndexAny(line, "\r\n"); k >= 0 {
			line = line[:k]
		}
		if strings.ContainsAny(line, "\u0085\u2028\u2029\v\f") {
			return true
		}
	}
}

// checkDepth refuses a text nested deeper than MaxDepth (every token adds
// at most one level).
func checkDepth(toks []token, text string) error {
	return analyzerkit.CheckDepth(len(toks), MaxDepth, func() int { return depthBound(toks, text) })
}

// depthBound returns an upper bound, up to a small factor, of how deep the
// parser descends for a text, from its tokens (analyzerkit.Depth): an open
// bracket is one more level; a keyword that nests what follows (IF, WHILE,
// BEGIN, CASE …) and a unary operator (- - - 1) link at their bracket
// level; a comma starts a new chain at its level. Binary operators (a OR b
// OR …) count nothing: the grammar reads their chains in a loop, and the
// analyzer walks the tree without recursion. Names and literals count
// nothing.
func depthBound(toks []token, text string) int {
	var d analyzerkit.Depth
	for k, t := range toks {
		switch t.kind {
		case tokWord:
			if isNestingWord(text[t.start:t.end]) {
				d.Link()
			}
		case tokOp:
			switch text[t.start] {
			case '(':
				d.Open()
			case ')':
				d.Close()
			case ',':
				d.Chain()
			case '-', '+', '~':
				if k == 0 || toks[k-1].kind == tokOp || toks[k-1].kind == tokSemicolon {
					d.Link()
				}
			}
		}
	}
	return d.Max()
}

// isNestingWord reports keywords under which the grammar may descend.
func isNestingWord(w string) bool {
	if len(w) > 6 {
		return false
	}
	for _, k := range [...]string{"NOT", "CASE", "IF", "ELSE", "WHILE", "BEGIN", "SELECT", "EXISTS"} {
		if eqFold(w, k) {
			return true
		}
	}
	return false
}

var errUnicodeSpace = errors.New("a character outside a string that Unicode calls a space (U+00A0, U+1680, U+2000-U+200A, U+3000, …) or an invisible separator (U+180E, U+200B, U+FEFF): the parser reads some of them as letters of a name, and SQL Server may read them as a space")

// unicodeSpace reports whether a token of text other than a string or a
// quoted name holds a non-ASCII space or invisible separator. The T-SQL
// grammar reads U+1680 and U+180E as letters, so SELECT 1 AS a<U+1680>DELETE
// FROM t would be one SELECT to it; were SQL Server to take the character
// for a space, it would run a DELETE. No SQL Server here says which, so
// such a text is Unknown (fail closed); comments are left to oddLineEnd.
func unicodeSpace(text string, toks []token) bool {
	for _, t := range toks {
		if t.kind == tokString || t.kind == tokQuoted || isASCII(text[t.start:t.end]) {
			continue
		}
		for s := text[t.start:t.end]; s != ""; {
			r, n := utf8.DecodeRuneInString(s)
			if r > 0x7f && (unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) || r == 0x180e || r == 0x200b || r == 0xfeff) {
				return true
			}
			s = s[n:]
		}
	}
	return false
}

// HoldBudget takes the whole parse budget until release is called, for
// listener tests (analyzerkit.Budget.Hold).
func HoldBudget() (release func()) { return budget.Hold() }

// HoldParseBudget takes the whole of analyzerkit.ParseTrees until release
// is called, for tests: a large text the parser must read then waits.
func HoldParseBudget() (release func()) { return analyzerkit.ParseTrees.Hold() }
