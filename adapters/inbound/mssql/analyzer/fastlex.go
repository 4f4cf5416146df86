package analyzer

import (
	"unicode/utf8"

	"github.com/sqlc-dev/teesql/parser"
)

// The fast path's lexical checks: where teesql's lexer and the
// analyzer's own (lex, SQL Server's reading) could differ, the text goes to
// the grammar.

// stringsOnly reports whether every character outside ASCII of a valid
// UTF-8 text is inside a string literal or a comment ('Müller', N'東京'):
// there it changes nothing the analysis reads. Elsewhere (a name, a space
// SQL Server may read otherwise) the text goes to the grammar. offs maps
// each UTF-16 code unit offset, as teesql's spans count them, to the byte
// offset of its character.
func stringsOnly(text string, toks []token) (offs []int, ok bool) {
	if !utf8.ValidString(text) {
		return nil, false
	}
	for _, t := range toks {
		if t.kind != tokString && !isASCII(text[t.start:t.end]) {
			return nil, false
		}
	}
	offs = make([]int, 0, len(text)+1)
	for i, r := range text {
		offs = append(offs, i)
		if r > 0xFFFF { // two code units
			offs = append(offs, i)
		}
	}
	return append(offs, len(text)), true
}

// sameTokens reports whether teesql's lexer reads text as lex does: each
// of its tokens is one of lex's, or several lex reads side by side (<>,
// a@b), and it skips nothing lex reads and reads nothing lex skips. Where
// they differ, teesql reads as code what SQL Server reads as a comment
// (it does not nest /* */: /* /* */ SELECT ' */ … --'; its money literal
// takes the - of "$--"), or as space what SQL Server reads (-- x CR …
// it ends at LF only; a control byte), and a name or a statement the
// server runs would not be in the analysis.
func sameTokens(text string, toks []token) (same bool) {
	defer func() {
		if p := recover(); p != nil {
			same = false
		}
	}()
	lx := parser.NewLexer(text)
	k := 0
	for {
		t := lx.NextToken()
		if t.Type == parser.TokenEOF {
			return k == len(toks) // NUL is teesql's end of text
		}
		end := t.Pos + len(t.Literal)
		if k == len(toks) || toks[k].start != t.Pos {
			return false
		}
		for toks[k].end < end && k+1 < len(toks) && toks[k+1].start == toks[k].end {
			k++
		}
		if toks[k].end != end {
			return false
		}
		k++
	}
}
