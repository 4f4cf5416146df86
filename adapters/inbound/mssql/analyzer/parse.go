package analyzer

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/antlr4-go/antlr/v4"
	"github.com/bytebase/parser/tsql"
)

// parsed is a text as the T-SQL grammar read it.
type parsed struct {
	tree tsql.ITsql_fileContext
	toks *antlr.CommonTokenStream
	// offs maps a rune index of the parser's input to a byte offset of the
	// text (nil when the text is ASCII: they are equal).
	offs []int
	// concat: EXEC ('a' + N'b' …): the string tokens after the first one,
	// by the rune index of the first (see joinExecStrings).
	concat map[int][]antlr.Token
}

// byteAt returns the byte offset of rune index i.
func (p *parsed) byteAt(i int) int {
	if p.offs == nil {
		return i
	}
	if i >= len(p.offs) {
		return p.offs[len(p.offs)-1]
	}
	return p.offs[i]
}

// bail ends a parse at its first syntax error: ANTLR's Go BailErrorStrategy
// records the error and lets the parser carry on (antlr4-go v4.13.1), so
// this strategy panics instead, and parseText recovers.
type bail struct{ *antlr.DefaultErrorStrategy }

type bailout struct{ err error }

func (bail) Recover(p antlr.Parser, e antlr.RecognitionException) { panic(bailout{syntaxError(p, e)}) }
func (bail) RecoverInline(p antlr.Parser) antlr.Token {
	panic(bailout{syntaxError(p, antlr.NewInputMisMatchException(p))})
}
func (bail) Sync(antlr.Parser) {}
func (bail) ReportError(p antlr.Parser, e antlr.RecognitionException) {
	panic(bailout{syntaxError(p, e)})
}

// syntaxError describes where parsing stopped: the exception's token, or
// the parser's current one (a NoViableAltException does not give its token
// back in antlr4-go v4.13.1).
func syntaxError(p antlr.Parser, e antlr.RecognitionException) error {
	var t antlr.Token
	if e != nil {
		t = e.GetOffendingToken()
	}
	if t == nil {
		t = p.GetCurrentToken()
	}
	if t == nil {
		return errors.New("syntax error")
	}
	if t.GetTokenType() == antlr.TokenEOF {
		return fmt.Errorf("syntax error at line %d column %d: unexpected end of text", t.GetLine(), t.GetColumn()+1)
	}
	return fmt.Errorf("syntax error at line %d column %d near %q", t.GetLine(), t.GetColumn()+1, clip(t.GetText(), 40))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// lexErrors fails a text on the first character the lexer cannot read
// (ANTLR's lexer would skip it and carry on).
type lexErrors struct {
	*antlr.DefaultErrorListener
	err error
}

func (l *lexErrors) SyntaxError(_ antlr.Recognizer, _ any, line, column int, msg string, _ antlr.RecognitionException) {
	if l.err == nil {
		l.err = fmt.Errorf("unreadable text at line %d column %d: %s", line, column+1, msg)
	}
}

// llParses counts the texts SLL prediction refused (tests and benchmarks
// read it).
var llParses atomic.Int64

// parseText parses sql with the T-SQL grammar in two stages: SLL
// prediction, fast once the grammar's DFA is warm, and on a syntax error
// full LL prediction, which reads every text the grammar accepts. Either
// stops at the first error (no recovery): a text with any error is refused.
func parseText(sql string) (p *parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("the parser failed on this text: %v", r)
		}
	}()
	p = &parsed{}
	if !isASCII(sql) {
		p.offs = make([]int, 0, len(sql)+1)
		for i := range sql { // as []rune(sql) counts: one rune per invalid byte
			p.offs = append(p.offs, i)
		}
		p.offs = append(p.offs, len(sql))
	}
	lexer := tsql.NewTSqlLexer(antlr.NewInputStream(sql))
	lerr := &lexErrors{DefaultErrorListener: antlr.NewDefaultErrorListener()}
	lexer.RemoveErrorListeners()
	lexer.AddErrorListener(lerr)
	all := lexer.GetAllTokens()
	if lerr.err != nil {
		return nil, lerr.err
	}
	all, p.concat = joinExecStrings(all)
	merged := mergeNames(lexer, all)
	src := &listSource{TSqlLexer: lexer, toks: merged}
	p.toks = antlr.NewCommonTokenStream(src, antlr.TokenDefaultChannel)
	p.toks.Fill()
	if p.tree, err = parseTokens(p.toks, antlr.PredictionModeSLL); err == nil {
		return p, nil
	}
	llParses.Add(1)
	if p.tree, err = parseTokens(p.toks, antlr.PredictionModeLL); err == nil {
		return p, nil
	}
	if len(merged) == len(all) || len(sql) > maxUnmerged {
		return nil, err
	}
	// A name the grammar wants in parts (DROP INDEX t.ix): the tokens as
	// lexed, with full LL prediction (slow: tens of ms per kilobyte).
	p.toks = antlr.NewCommonTokenStream(&listSource{TSqlLexer: lexer, toks: all}, antlr.TokenDefaultChannel)
	p.toks.Fill()
	if p.tree, err = parseTokens(p.toks, antlr.PredictionModeLL); err == nil {
		return p, nil
	}
	return nil, err
}

// maxUnmerged is the longest text parsed again with its names in parts
// when it fails with them joined, in bytes.
const maxUnmerged = 2 << 10

// mergeNames joins each multi-part name written without spaces (a.b,
// [my db].dbo.[t x], db..t) into one identifier token spanning it.
//
// The grammar reads a.b in an expression through full_table_name, whose
// loop over ".name" SLL prediction cannot decide without the caller's
// context: every qualified column (SELECT t.x …) then fails in SLL and
// costs a full-context LL parse, 10 to 100 times slower (45 ms for a
// join, 350 ms for a 2 KB batch, warm). Every place the grammar takes a
// multi-part name also takes a single identifier, and the analysis splits
// the token's text into its parts again (walker.parts).
func mergeNames(lexer *tsql.TSqlLexer, all []antlr.Token) []antlr.Token {
	isPart := func(t antlr.Token) bool {
		tt := t.GetTokenType()
		return tt == tsql.TSqlLexerID || tt == tsql.TSqlLexerSQUARE_BRACKET_ID || tt == tsql.TSqlLexerDOUBLE_QUOTE_ID ||
			tt == tsql.TSqlLexerTEMP_ID || lexer.IsKeyword(tt) // not reserved
	}
	adjacent := func(a, b antlr.Token) bool { return a.GetStop()+1 == b.GetStart() }
	var out []antlr.Token
	for k := 0; k < len(all); k++ {
		t := all[k]
		end := k
		if isPart(t) {
			for j := k + 1; j+1 < len(all) && all[j].GetTokenType() == tsql.TSqlLexerDOT && adjacent(all[j-1], all[j]); {
				next := all[j+1]
				if next.GetTokenType() == tsql.TSqlLexerDOT && adjacent(all[j], next) { // db..t
					j++
					continue
				}
				if !isPart(next) || !adjacent(all[j], next) {
					break
				}
				end = j + 1
				j += 2
			}
		}
		if end == k {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = append(make([]antlr.Token, 0, len(all)), all[:k]...)
		}
		m := antlr.NewCommonToken(t.GetSource(), tsql.TSqlLexerID, antlr.TokenDefaultChannel, t.GetStart(), all[end].GetStop())
		m.SetText(joinText(all[k : end+1]))
		out = append(out, m)
		k = end
	}
	if out == nil {
		return all
	}
	return out
}

func joinText(toks []antlr.Token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.GetText())
	}
	return b.String()
}

func parseTokens(toks *antlr.CommonTokenStream, mode int) (tree tsql.ITsql_fileContext, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			tree, err = nil, b.err
		}
	}()
	toks.Seek(0)
	ps := tsql.NewTSqlParser(toks)
	ps.RemoveErrorListeners()
	ps.SetErrorHandler(bail{antlr.NewDefaultErrorStrategy()})
	ps.GetInterpreter().SetPredictionMode(mode)
	return ps.Tsql_file(), nil
}

// listSource hands the parser a token list read beforehand.
type listSource struct {
	*tsql.TSqlLexer
	toks []antlr.Token
	i    int
}

func (s *listSource) NextToken() antlr.Token {
	if s.i < len(s.toks) {
		t := s.toks[s.i]
		s.i++
		return t
	}
	return s.TSqlLexer.NextToken() // EOF, again and again
}

// joinExecStrings lets the grammar read EXEC ('a' + N'b' + …): SQL Server
// concatenates the literals, the grammar accepts one literal (or variables)
// between the brackets. It removes each '+' 'literal' that follows a literal
// inside EXEC ( … ) from the tokens the parser sees and returns them by the
// first literal's rune index, for the analysis of the whole text.
func joinExecStrings(all []antlr.Token) ([]antlr.Token, map[int][]antlr.Token) {
	var concat map[int][]antlr.Token
	out := all[:0:0]
	def := func(k int) int { // the next token on the default channel from k
		for k < len(all) && all[k].GetChannel() != antlr.TokenDefaultChannel {
			k++
		}
		return k
	}
	for k := 0; k < len(all); k++ {
		t := all[k]
		out = append(out, t)
		if t.GetTokenType() != tsql.TSqlLexerEXECUTE {
			continue
		}
		open := def(k + 1)
		if open >= len(all) || all[open].GetTokenType() != tsql.TSqlLexerLR_BRACKET {
			continue
		}
		first := def(open + 1)
		if first >= len(all) || all[first].GetTokenType() != tsql.TSqlLexerSTRING {
			continue
		}
		var more []antlr.Token
		end := first + 1
		for {
			plus := def(end)
			lit := def(plus + 1)
			if lit >= len(all) || all[plus].GetTokenType() != tsql.TSqlLexerPLUS || all[lit].GetTokenType() != tsql.TSqlLexerSTRING {
				break
			}
			more = append(more, all[lit])
			end = lit + 1
		}
		if len(more) == 0 {
			continue
		}
		if concat == nil {
			concat = map[int][]antlr.Token{}
		}
		concat[all[first].GetStart()] = more
		out = append(out, all[k+1:first+1]...)
		k = end - 1
	}
	return out, concat
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// trimStatement is a text as Statement.Text gives it: without surrounding
// spaces and closing semicolons.
func trimStatement(sql string) string {
	return strings.TrimRight(strings.TrimSpace(sql), "; \t\r\n\f\v")
}
