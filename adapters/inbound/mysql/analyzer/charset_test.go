package analyzer

import (
	"errors"
	"slices"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// The issue-32 text: in latin1 0xA0 is whitespace, so "--" then 0xA0 is a
// comment to the end of the line and the DELETE and DROP on the next line
// run. Read in the session's character set, the DELETE and DROP are seen
// (or the text is refused); in utf8mb4 0xA0 is part of a word, as before.
func TestLatin1SpaceAfterDashDash(t *testing.T) {
	const text = "SELECT 1 --\xa0 /*\n; DELETE FROM t; DROP TABLE victim; SELECT 2 --\xa0 */"
	for _, cs := range []string{"latin1", "cp1250", "latin7", "hebrew", "greek", "dec8", "armscii8", "LATIN1"} {
		r := AnalyzeMode(text, "db", Mode{Charset: cs, Exact: true})
		if r.Err != nil {
			if !errors.Is(r.Err, ErrUncheckable) {
				t.Errorf("%s: %v, want the DELETE seen or the text uncheckable", cs, r.Err)
			}
			continue
		}
		if !hasAction(r, "DELETE") || !hasAction(r, "DROP") {
			t.Errorf("%s: %+v, want DELETE and DROP", cs, r.Statements)
		}
	}
	// Bytes each set calls a control character also end "--".
	for cs, b := range map[string]string{"cp1250": "\x81", "latin7": "\x81", "hp8": "\xa0", "macroman": "\x80", "cp850": "\xff"} {
		r := AnalyzeMode("SELECT 1 --"+b+" /*\n; DELETE FROM t; SELECT 2 --"+b+" */", "db", Mode{Charset: cs, Exact: true})
		if r.Err == nil && !hasAction(r, "DELETE") {
			t.Errorf("%s with 0x%x: %+v, want DELETE", cs, b, r.Statements)
		}
	}
	if r := AnalyzeMode("SELECT 1 AS `a\xa0b`, 'x\xa0y'", "db", Mode{Charset: "latin1", Exact: true}); r.Err != nil {
		t.Errorf("0xA0 inside literals in latin1: %v", r.Err)
	}
	if r := AnalyzeMode("DELETE\xa0FROM t", "db", Mode{Charset: "latin1", Exact: true}); r.Err != nil || !hasAction(r, "DELETE") {
		t.Errorf("0xA0 between words in latin1: %+v", r)
	}
	for _, cs := range []string{"no-such-set", "cp1251"} {
		if r := AnalyzeMode("SELECT 1 --\x7f\n", "db", Mode{Charset: cs, Exact: true}); !errors.Is(r.Err, ErrUncheckable) {
			t.Errorf("%s, 0x7F outside a literal: %v, want uncheckable", cs, r.Err)
		}
	}
}

// A statement that changes the character set or sql_mode changes how the
// statements after it in the same text read.
func TestReadingChangesWithinAText(t *testing.T) {
	m := Mode{Exact: true}
	r := AnalyzeMode("SET NAMES latin1; SELECT 1 --\xa0 /*\n; DELETE FROM t; SELECT 2 --\xa0 */", "db", m)
	if r.Err == nil && !hasAction(r, "DELETE") {
		t.Errorf("SET NAMES latin1 then the text: %+v", r.Statements)
	}
	r = AnalyzeMode("SET NAMES gbk;SELECT 1 AS `a\x95`, 2 AS `;DELETE FROM t;-- `", "db", m)
	if r.Err == nil || !slices.Contains(r.Statements[0].Analysis.Actions, domain.ActionUnknown) && !errors.Is(r.Err, ErrUncheckable) {
		t.Errorf("SET NAMES gbk then a backtick after 0x95: %+v", r)
	}
	r = AnalyzeMode(`SET sql_mode='ANSI_QUOTES'; DELETE FROM "t" WHERE id=1`, "db", m)
	if r.Err != nil || !hasAction(r, "DELETE") || !slices.Contains(r.Statements[1].Analysis.Targets, "db.t") {
		t.Errorf("ANSI_QUOTES then DELETE FROM \"t\": %+v", r)
	}
	if !r.Changes || !r.LeavesKnown || !r.Leaves.ANSIQuotes {
		t.Errorf("the text leaves %+v", r)
	}
	for _, q := range []string{"CALL p(); DELETE FROM t", "SET sql_mode = concat(@@sql_mode, ',ANSI_QUOTES'); SELECT 1", "SET sql_mode='ORACLE'; SELECT 1"} {
		if r := AnalyzeMode(q, "db", m); !errors.Is(r.Err, ErrUncheckable) {
			t.Errorf("%q: %v, want uncheckable", q, r.Err)
		}
	}
	if r := AnalyzeMode("SELECT 1", "db", m.WithSQLMode("STRICT_TRANS_TABLES,ORACLE")); !errors.Is(r.Err, ErrUncheckable) {
		t.Errorf("ORACLE mode: %v, want uncheckable", r.Err)
	}
	if r := AnalyzeMode("SET NAMES latin1", "db", m); !r.Changes || !r.LeavesKnown || r.Leaves.Charset != "latin1" {
		t.Errorf("SET NAMES latin1 leaves %+v", r)
	}
}

func hasAction(r Result, a string) bool {
	for _, st := range r.Statements {
		if slices.Contains(st.Analysis.Actions, a) {
			return true
		}
	}
	return false
}

// A SET NAMES of a set the parser does not know is SET with a change only
// the server can tell (the server answers 1115 itself, or knows the set),
// and it is never a way to hide a statement after it.
func TestSetNamesOfAnUnknownSet(t *testing.T) {
	m := Mode{Charset: "utf8mb4", Exact: true}
	for _, q := range []string{"SET NAMES none", "set names 'none';", "SET CHARACTER SET `x`", "SET CHARSET foo", "SET NAMES none COLLATE bar"} {
		r := AnalyzeMode(q, "db", m)
		if r.Err != nil || hasAction(r, domain.ActionUnknown) || !hasAction(r, "SET") || !r.Changes || r.LeavesKnown {
			t.Errorf("%q: %+v, want SET with a change only the server knows", q, r)
		}
	}
	for _, q := range []string{"SET NAMES none; DELETE FROM t", "SET NAMES none, @a = (DELETE)", "SET NAMES none DELETE", "SET GLOBAL NAMES none"} {
		r := AnalyzeMode(q, "db", m)
		if r.Err == nil || !hasAction(r, domain.ActionUnknown) {
			t.Errorf("%q: %+v, want UNKNOWN", q, r)
		}
	}
	if r := AnalyzeMode("SET NAMES none; DELETE FROM t", "db", m); !errors.Is(r.Err, ErrUncheckable) {
		t.Errorf("SET NAMES none then a DELETE: %v, want uncheckable", r.Err)
	}
	// A set the parser lacks but the analyzer's table has: the rest of the
	// text is read in it.
	for _, q := range []string{"SET NAMES big5 ;DELETE FROM t", "SET NAMES 'cp1250';\tDELETE FROM t"} {
		r := AnalyzeMode(q, "db", m)
		if r.Err != nil || len(r.Statements) != 2 || !hasAction(r, "DELETE") || !r.LeavesKnown {
			t.Errorf("%q: %+v, want SET then DELETE, read", q, r)
		}
	}
	if r := AnalyzeMode("SET NAMES cp1250", "db", m); !r.LeavesKnown || r.Leaves.Charset != "cp1250" {
		t.Errorf("SET NAMES cp1250 leaves %+v", r)
	}
}
