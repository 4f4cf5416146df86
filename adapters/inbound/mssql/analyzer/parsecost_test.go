package analyzer

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// rows is a multi-row INSERT of about size bytes, each row row, then tail.
func rows(size int, row, tail string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO big VALUES ")
	for b.Len() < size-len(row)-len(tail) {
		b.WriteString(row)
		b.WriteString(",")
	}
	b.WriteString(row)
	b.WriteString(tail)
	return b.String()
}

// TokenCost covers what the analyzer allocates per token on the costliest
// shapes (multi-row INSERTs of small values, which the grammar must read
// when the last row calls a function): the heap the parse allocates is
// under the estimate analyzeBounded takes from the parse budget. A first
// parse of each shape fills the grammar's prediction cache, which lasts
// for the process (Warm), so the parse is measured the second time.
func TestParseCostCoversTheParser(t *testing.T) {
	for _, row := range []string{"(1)", "(-1)", "(NULL)", "(1,2)", "(12345,N'abcdefgh',3.5,NULL)"} {
		sql := rows(256<<10, row, ",(GETDATE())")
		n := countTokens(sql, 0)
		analyze(sql, "app", 0)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := analyze(sql, "app", 0)
		runtime.ReadMemStats(&after)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s rows: %d bytes, %d tokens, the parse allocated %d bytes (%d per token), estimated %d", row, len(sql), n, alloc, alloc/uint64(n), n*TokenCost)
		if alloc > uint64(n*TokenCost) {
			t.Errorf("%s rows: the parse allocated %d bytes, over the estimate of %d", row, alloc, n*TokenCost)
		}
	}
}

// A 4 MiB multi-row INSERT of literals is read by the bulk reader (no
// parse: little memory), and so is a 32 KiB one; the same with a function call in its last row
// has too many tokens to parse within the budget and is uncheckable, and
// so is a small EXEC of it as dynamic SQL; a large text of few tokens is
// still parsed.
func TestLargeTextsWithinTheParseBudget(t *testing.T) {
	sql := rows(MaxSize-16, "(1)", "")
	analyzeGrammar("INSERT INTO big VALUES (1)", "app", 0) // the grammar's first sight of the head (Warm)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := Analyze(sql, "app")
	runtime.ReadMemStats(&after)
	if r.Err != nil || len(r.Statements) != 1 || !reflect.DeepEqual(r.Statements[0].Analysis.Actions, []string{"INSERT"}) ||
		!slices.Contains(r.Statements[0].Analysis.Targets, "app.dbo.big") || r.Statements[0].Text != sql {
		t.Fatalf("4 MiB INSERT: %v, %+v", r.Err, r.Statements[0].Analysis)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("4 MiB INSERT of literals allocated %d MiB, want it read without a parse tree", alloc>>20)
	}
	mid := rows(32<<10, "(1)", "") // past the fast path, under LargeText
	runtime.GC()
	runtime.ReadMemStats(&before)
	r = Analyze(mid, "app")
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; r.Err != nil || alloc > 1<<20 {
		t.Errorf("32 KiB INSERT of literals: %v, allocated %d KiB, want it read without a parse tree", r.Err, alloc>>10)
	}
	call := rows(MaxSize-16, "(1)", ",(GETDATE())")
	if r := Analyze(call, "app"); !isUncheckable(r.Err) || !strings.Contains(r.Err.Error(), "MiB the Sidecar parses at once") {
		t.Errorf("4 MiB INSERT with GETDATE(): %v, want uncheckable", r.Err)
	}
	exec := "EXEC ('" + strings.ReplaceAll(rows(1<<20, "(N'a')", ",(GETDATE())"), "'", "''") + "')"
	if r := Analyze(exec, "app"); !isUncheckable(r.Err) {
		t.Errorf("EXEC of a 1 MiB INSERT with GETDATE(): %v, want uncheckable", r.Err)
	}
	del := "DELETE FROM t WHERE v = '" + strings.Repeat("x", MaxSize-64) + "'"
	if r := Analyze(del, "app"); r.Err != nil || !reflect.DeepEqual(r.Statements[0].Analysis.Actions, []string{"DELETE"}) {
		t.Errorf("4 MiB DELETE of one string: %v %+v", r.Err, r.Statements)
	}
}

// A text within the budget waits for its share and, when its client
// leaves first, is uncheckable without being parsed.
func TestParseBudgetWaitEndsWithTheClient(t *testing.T) {
	release := HoldParseBudget()
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if r := AnalyzeContext(ctx, "DELETE FROM t WHERE v = '"+strings.Repeat("x", 100<<10)+"'", "app"); !isUncheckable(r.Err) || !errors.Is(r.Err, context.DeadlineExceeded) {
		t.Errorf("a client gone while its text waited: %v, want uncheckable", r.Err)
	}
	if r := AnalyzeContext(context.Background(), rows(256<<10, "(1)", ""), "app"); r.Err != nil {
		t.Errorf("a bulk INSERT waits for no parse: %v", r.Err)
	}
}

// bulkTexts are texts the bulk reader reads; notBulk ones it leaves to
// the parser.
var (
	bulkTexts = []string{
		"INSERT INTO t VALUES (1)",
		"insert into t values (1),(2) ,( 3 ) ;",
		"INSERT t (a, [b c]) VALUES (-1, N'x''y'), (+2.5e3, 'z'), (NULL, 0x1F), (.5, 0x);;",
		"INSERT INTO [db1].sales.[orders] WITH (TABLOCK) (id, note) VALUES (1, N'東京'), (2, 'a /* b */') -- end",
		"INSERT INTO t OUTPUT inserted.id INTO @ids VALUES (1), /* a /* nested */ comment */ (2)",
		"INSERT INTO t VALUES (1), (2)\nINSERT INTO u (a) VALUES (3);INSERT INTO v VALUES (4)",
		"INSERT TOP (5) INTO t VALUES (1)",
		"/* lead */ INSERT INTO #tmp VALUES (1),(2);",
	}
	notBulk = []string{
		"INSERT INTO t DEFAULT VALUES",
		"INSERT INTO t VALUES (1), (GETDATE())",
		"INSERT INTO t VALUES ((1))",
		"INSERT INTO t VALUES (1) SELECT 1",
		"INSERT INTO t SELECT * FROM (VALUES (1), (2)) v(a)",
		"INSERT INTO t VALUES (@x)",
		"INSERT INTO t VALUES (\"a\")",
		"INSERT INTO t VALUES (- - 1)",
		"INSERT INTO t VALUES (1) GO",
		"INSERT INTO t VALUES ('open",
		"USE x; INSERT INTO t VALUES (1)",
		"INSERT INTO t VALUES (1); DELETE FROM t",
		"INSERT INTO t EXEC ('SELECT 1') VALUES (1)",
		"INSERT INTO t VALUES (1),",
		"INSERT INTO t VALUES",
	}
)

// The bulk reader gives the grammar's result on every text it reads, and
// reads none of notBulk.
func TestBulkAgreesWithTheGrammar(t *testing.T) {
	for _, text := range bulkTexts {
		br, ok := readBulk(text, "app")
		if !ok {
			t.Errorf("%q: the bulk reader did not read it", text)
			continue
		}
		if gr := analyzeGrammar(text, "app", 0); !reflect.DeepEqual(br, gr) {
			t.Errorf("%q:\nbulk:    %s\ngrammar: %s", text, describe(br), describe(gr))
		}
	}
	for _, text := range notBulk {
		if br, ok := readBulk(text, "app"); ok {
			t.Errorf("%q: the bulk reader read it: %s", text, describe(br))
		}
	}
}

// FuzzBulk: whatever text the bulk reader reads, the grammar reads it the
// same; and the bulk reader never fails or hangs.
func FuzzBulk(f *testing.F) {
	for _, s := range append(append([]string{}, bulkTexts...), notBulk...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4<<10 || checkLimits(text) != nil {
			return
		}
		br, ok := readBulk(text, "app")
		if !ok {
			return
		}
		if gr := analyzeGrammar(text, "app", 0); !reflect.DeepEqual(br, gr) {
			t.Errorf("%q:\nbulk:    %s\ngrammar: %s", text, describe(br), describe(gr))
		}
	})
}
