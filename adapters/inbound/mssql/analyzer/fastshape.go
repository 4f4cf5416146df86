package analyzer

import (
	"strings"

	"github.com/sqlc-dev/teesql/ast"
)

// The fast path's clause checks: the clauses teesql parses leniently or
// drops from its tree, checked against the text's own tokens.

// nestedOption reports whether a parenthesis opens, or a SELECT or FROM
// stands, inside an OPTION ( … ) list. teesql skips each token of the list
// it does not read as a hint's (OPTION (SELECT 1 FROM secret) is the hint
// "secret"), and the hints the fast path reads take no parentheses (TABLE
// HINT, USE HINT and OPTIMIZE FOR, which do, are not read) and no query.
func nestedOption(text string, toks []token) bool {
	for k := 0; k+1 < len(toks); k++ {
		t := toks[k]
		if t.kind != tokWord || !strings.EqualFold(text[t.start:t.end], "OPTION") || text[toks[k+1].start:toks[k+1].end] != "(" {
			continue
		}
		for j := k + 2; j < len(toks); j++ {
			switch strings.ToUpper(text[toks[j].start:toks[j].end]) {
			case "(", "SELECT", "FROM":
				return true
			case ")":
				j = len(toks)
			}
		}
	}
	return false
}

// fromShape reports whether the tokens of a FROM clause are FROM and its
// table references, separated by commas. teesql's FROM clause is lenient:
// when a table reference fails to parse it keeps the references before it
// and drops the tokens it read (SELECT * FROM secret AS, FROM t AS x JOIN
// (SELECT … FROM secret)), the tables and subqueries among them with them.
func (f *fastWalker) fromShape(c *ast.FromClause) bool {
	start, end, ok := f.span(&c.Fragment)
	if !ok || len(c.TableReferences) == 0 {
		return false
	}
	k := f.tokenAt(start)
	if k >= len(f.toks) || f.toks[k].kind != tokWord || !strings.EqualFold(f.text[f.toks[k].start:f.toks[k].end], "FROM") {
		return false
	}
	k++
	for i, r := range c.TableReferences {
		if i > 0 {
			if k >= len(f.toks) || f.text[f.toks[k].start:f.toks[k].end] != "," {
				return false
			}
			k++
		}
		if k, ok = f.past(k, r); !ok {
			return false
		}
	}
	return k == len(f.toks) || f.toks[k].start >= end
}

// offsetShape reports whether the tokens of an OFFSET clause are SQL
// Server's: OFFSET n ROW[S] [FETCH FIRST|NEXT m ROW[S] ONLY]. teesql takes
// each keyword but OFFSET and FETCH as optional, and reads into the clause
// what the grammar reads as the next statement (… OFFSET 1 ROWS FETCH c: a
// cursor's FETCH).
func (f *fastWalker) offsetShape(c *ast.OffsetClause) bool {
	start, end, ok := f.span(&c.Fragment)
	if !ok || c.OffsetExpression == nil {
		return false
	}
	k := f.tokenAt(start)
	word := func(words ...string) bool {
		if k >= len(f.toks) || f.toks[k].end > end || f.toks[k].kind != tokWord {
			return false
		}
		for _, w := range words {
			if strings.EqualFold(f.text[f.toks[k].start:f.toks[k].end], w) {
				k++
				return true
			}
		}
		return false
	}
	expr := func(e ast.ScalarExpression) bool {
		k, ok = f.past(k, e)
		return ok
	}
	if !word("OFFSET") || !expr(c.OffsetExpression) || !word("ROW", "ROWS") {
		return false
	}
	if c.FetchExpression != nil && (!word("FETCH") || !word("FIRST", "NEXT") || !expr(c.FetchExpression) ||
		!word("ROW", "ROWS") || !word("ONLY")) {
		return false
	}
	return k == len(f.toks) || f.toks[k].start >= end
}
