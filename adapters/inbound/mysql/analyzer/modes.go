package analyzer

import (
	"fmt"
	"slices"

	"github.com/hoophq/sidecar/domain"
)

// otherModes checks a text that holds a backslash in a quoted token against
// the sql_modes the listener may not know the session to have: with
// NO_BACKSLASH_ESCAPES a backslash no longer escapes a quote, and with
// ANSI_QUOTES "…" is an identifier in which a backslash is an ordinary
// byte. Either can end a string earlier and turn its remainder into
// statements ('a\'; DROP TABLE t; -- ').
//
// Each other reading is split into statements the way the server runs
// them, one after another until the first it cannot parse. Where each
// statement that reading runs spans the same bytes as one of the
// statements read in mode m, its kinds, targets and functions are added to
// that statement; otherwise the text is uncheckable. Statements start where
// they start in mode m; a string read shorter may end one earlier (before
// a comment) or, read longer, take in the next.
func otherModes(sql, db string, m Mode, nest int, stmts []parsed, out []Statement) error {
	at := make(map[int]int, len(stmts)) // statement index by start
	for i, p := range stmts {
		at[p.start] = i
	}
	for _, flip := range [][2]bool{{true, false}, {false, true}, {true, true}} {
		alt := m
		alt.NoBackslashEscapes = m.NoBackslashEscapes != flip[0]
		alt.ANSIQuotes = m.ANSIQuotes != flip[1]
		other, err := reading(sql, db, alt, nest)
		if err != nil {
			return err
		}
		for _, o := range other {
			i, ok := at[o.start]
			if !ok || !sameSession(out[i], o.st) {
				return fmt.Errorf("%w: it reads as other statements under sql_mode %s", ErrUncheckable, alt)
			}
			merge(&out[i], o.st.Analysis)
		}
	}
	return nil
}

// String names the modes as sql_mode lists them.
func (m Mode) String() string {
	switch {
	case m.NoBackslashEscapes && m.ANSIQuotes:
		return "NO_BACKSLASH_ESCAPES,ANSI_QUOTES"
	case m.NoBackslashEscapes:
		return "NO_BACKSLASH_ESCAPES"
	case m.ANSIQuotes:
		return "ANSI_QUOTES"
	}
	return "''"
}

type spanned struct {
	st         Statement
	start, end int
}

// reading returns the statements the server runs of sql in mode m, in
// order: the whole text when it parses; else its statements (split at
// semicolons outside quotes and comments) up to the first that does not
// parse or lex, which the server refuses, running nothing after it. A
// statement that fails to parse with more text after it is uncheckable:
// the server may read it as one compound statement (CREATE PROCEDURE …
// BEGIN …; …; END) and go on.
func reading(sql, db string, m Mode, nest int) ([]spanned, error) {
	l := lex(sql, m)
	if l.err == nil {
		if stmts, err := parseText(l.code, m); err == nil {
			out := make([]spanned, 0, len(stmts))
			for _, p := range stmts {
				st, err := classifyStmt(p.node, db, m, nest)
				if err != nil {
					return nil, err
				}
				out = append(out, spanned{st, p.start, p.end})
			}
			return out, nil
		}
	}
	var out []spanned
	first := -1 // index of the first token of the current statement
	for k := 0; k <= len(l.toks); k++ {
		if k < len(l.toks) && l.toks[k].kind != tokSemicolon {
			if first < 0 {
				first = k
			}
			continue
		}
		if first < 0 {
			continue
		}
		if k == len(l.toks) && l.err != nil {
			break // the statement the lexer stopped in: the server refuses it
		}
		start, end := l.toks[first].start, l.toks[k-1].end
		first = -1
		stmts, err := parseText(l.code[start:end], m)
		if err != nil || len(stmts) != 1 {
			if l.err != nil || slices.ContainsFunc(l.toks[k:], func(t token) bool { return t.kind != tokSemicolon }) {
				return nil, fmt.Errorf("%w: under sql_mode %s a statement the analyzer cannot read is followed by more", ErrUncheckable, m)
			}
			break
		}
		st, err := classifyStmt(stmts[0].node, db, m, nest)
		if err != nil {
			return nil, err
		}
		out = append(out, spanned{st, start + stmts[0].start, start + stmts[0].end})
	}
	return out, nil
}

// sameSession reports whether two readings of one statement leave the
// session in the same state (database, KILL target, LOAD DATA LOCAL).
func sameSession(a, b Statement) bool {
	return a.UseDB == b.UseDB && a.LoadLocal == b.LoadLocal && (a.Kill == nil) == (b.Kill == nil) &&
		(a.Kill == nil || *a.Kill == *b.Kill) && a.Execute == b.Execute && a.Deallocate == b.Deallocate
}

// merge adds an analysis to a statement's.
func merge(st *Statement, a domain.Analysis) {
	w := newWalker("", Mode{}, 0)
	w.add(st.Analysis)
	w.add(a)
	st.Analysis = w.statement().Analysis
}
