package analyzer

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
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

// TokenCost covers what the parser allocates per token on the costliest
// shape (a multi-row INSERT of one-number rows, which the parser must read
// when its last row calls a function): the heap the parse allocates is
// under the estimate analyzeBounded takes from the parse budget.
func TestParseCostCoversTheParser(t *testing.T) {
	for _, row := range []string{"(1)", "(12345,'abcdefgh',3.5,NULL)"} {
		sql := rows(256<<10, row, ",(now())")
		n := 0
		lexEach(sql, Mode{}, func(token) { n++ })
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := analyze(sql, "app", Mode{}, 0)
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

// An 8 MiB multi-row INSERT of literals is read by the bulk reader (no
// parse: little memory); the same with a function call in its last row
// has too many tokens to parse within the budget and is uncheckable; a
// large text of few tokens is still parsed.
func TestLargeTextsWithinTheParseBudget(t *testing.T) {
	sql := rows(8<<20, "(1)", "")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := Analyze(sql, "app")
	runtime.ReadMemStats(&after)
	if r.Err != nil || len(r.Statements) != 1 || !reflect.DeepEqual(r.Statements[0].Analysis.Actions, []string{"INSERT"}) || r.Statements[0].Text != sql {
		t.Fatalf("8 MiB INSERT: %v, %+v", r.Err, r.Statements[0].Analysis)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("8 MiB INSERT of literals allocated %d MiB, want it read without a parse tree", alloc>>20)
	}
	if r := Analyze(rows(8<<20, "(1)", ",(now())"), "app"); !isUncheckable(r.Err) {
		t.Errorf("8 MiB INSERT with now(): %v, want uncheckable", r.Err)
	}
	del := "DELETE FROM t WHERE v = '" + strings.Repeat("x", 8<<20-64) + "'"
	if r := Analyze(del, "app"); r.Err != nil || !reflect.DeepEqual(r.Statements[0].Analysis.Actions, []string{"DELETE"}) {
		t.Errorf("8 MiB DELETE of one string: %v %+v", r.Err, r.Statements)
	}
}
