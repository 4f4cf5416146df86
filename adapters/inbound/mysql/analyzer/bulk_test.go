package analyzer

import (
	"reflect"
	"strings"
	"testing"
)

var bulkSeeds = []string{
	"INSERT INTO t (a,b) VALUES (1,'x'),(2,-3.5e2)",
	"insert ignore into d2.t values (NULL, DEFAULT, TRUE, 0x1f, x'1f', _utf8mb4'x', 'a' 'b', - -1, +5e3)",
	"INSERT t VALUE (1)", "INSERT INTO `a b`.`c``d` () VALUES (), ()", "INSERT LOW_PRIORITY INTO t VALUES (0b101)",
	"INSERT INTO t VALUES (1); INSERT INTO u VALUES(2);", "/* dump */ INSERT /*!40000 IGNORE */ INTO t VALUES ('a\\'b')",
	// not bulk: each must fail in analyzeBulk
	"INSERT INTO t SELECT * FROM u", "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a=1", "INSERT INTO t VALUES (now())",
	"INSERT INTO t VALUES ((SELECT 1))", "INSERT INTO t VALUES (1); DELETE FROM t", "INSERT INTO t VALUES (@a)",
	"INSERT INTO t SET a=1", "INSERT INTO t VALUES (1) RETURNING *", "INSERT INTO t PARTITION (p) VALUES (1)",
	"INSERT INTO t VALUES (0X1F)", "INSERT INTO t VALUES (x '1f')", "INSERT INTO t VALUES (1", "REPLACE INTO t VALUES (1)",
	"INSERT INTO t VALUES (1) /*!99999 ; DROP TABLE t */", "INSERT INTO t VALUES (1) AS n", "INSERT INTO t VALUES (-NULL)",
}

// bulkModes are the sql_modes bulkAgrees reads each text in: unknown
// (the other readings must agree too) and known exactly.
var bulkModes = []Mode{{}, {Exact: true}, {NoBackslashEscapes: true, Exact: true}, {ANSIQuotes: true}}

// bulkAgrees checks that where bulkExact reads a text (in any of
// bulkModes), the parser reads it with the same result: the same
// statements, texts and analyses, no error, the same mode left behind.
// It reports whether bulkExact read it in any of them.
func bulkAgrees(t *testing.T, sql, db string) bool {
	t.Helper()
	read := false
	for _, m := range bulkModes {
		got, ok := bulkExact(sql, db, m)
		if !ok {
			continue
		}
		read = true
		want := analyze(sql, db, m, 0)
		if want.Err != nil {
			t.Fatalf("%q in %+v: bulk reads %+v, the parser fails: %v", sql, m, got.Statements, want.Err)
		}
		if !reflect.DeepEqual(got.Statements, want.Statements) {
			t.Fatalf("%q in %+v:\nbulk   %+v\nparser %+v", sql, m, got.Statements, want.Statements)
		}
		if got.Changes != want.Changes || got.LeavesKnown != want.LeavesKnown || got.Leaves != want.Leaves {
			t.Fatalf("%q in %+v: bulk leaves %v %v %+v, parser %v %v %+v", sql, m, got.Changes, got.LeavesKnown, got.Leaves, want.Changes, want.LeavesKnown, want.Leaves)
		}
	}
	return read
}

// Where the bulk reader reads a text, its analysis is the parser's; texts
// of any other shape are not read.
func TestBulkAgreesWithParser(t *testing.T) {
	read := 0
	for i, sql := range bulkSeeds {
		ok := bulkAgrees(t, sql, "app")
		if notBulk := i >= 7; ok == notBulk {
			t.Errorf("%q: read as bulk %v, want %v", sql, ok, !notBulk)
		}
		if ok {
			read++
		}
	}
	if read != 7 {
		t.Errorf("read %d of the bulk seeds, want 7", read)
	}
}

// A 17 MiB INSERT, over the size the parser reads, is INSERT on its table;
// the same size with a DELETE after it stays uncheckable.
func TestLargeInsertIsReadAsInsert(t *testing.T) {
	var b strings.Builder
	b.WriteString("INSERT INTO big (id, v) VALUES ")
	row := "(12345,'" + strings.Repeat("x", 1000) + "')"
	for b.Len() < 17<<20 {
		b.WriteString(row)
		b.WriteString(",")
	}
	b.WriteString(row)
	sql := b.String()
	r := Analyze(sql, "app")
	if r.Err != nil || len(r.Statements) != 1 {
		t.Fatalf("17 MiB INSERT: %v, %d statements", r.Err, len(r.Statements))
	}
	if a := r.Statements[0].Analysis; !reflect.DeepEqual(a.Actions, []string{"INSERT"}) || !reflect.DeepEqual(a.Targets, []string{"app.big", "big"}) {
		t.Fatalf("17 MiB INSERT read as %+v", a)
	}
	for _, tail := range []string{";DELETE FROM big", ",(now())", ";INSERT INTO big VALUES ((SELECT 1))"} {
		r := Analyze(sql+tail, "app")
		if !isUncheckable(r.Err) {
			t.Errorf("17 MiB INSERT then %q: %v, want uncheckable", tail, r.Err)
		}
	}
	// A backslash in a string under an unknown sql_mode: the other readings
	// are bulk INSERTs on the same table too.
	if r := AnalyzeMode(sql+",(1,'a\\'b')", "app", Mode{Exact: true}); r.Err != nil {
		t.Errorf("with a backslash, sql_mode known: %v", r.Err)
	}
	if r := Analyze(sql+",(1,'a\\'b')", "app"); !isUncheckable(r.Err) {
		t.Errorf("with a backslash that leaves a string open under NO_BACKSLASH_ESCAPES: %v, want uncheckable", r.Err)
	}
	if r := Analyze(sql+",(1,'a\\\\'),(2,'b')", "app"); r.Err != nil {
		t.Errorf("with a string ending in a backslash in every reading: %v", r.Err)
	}
}

// FuzzBulk: where the bulk reader reads a text, the parser reads the same
// statements with the same analysis.
func FuzzBulk(f *testing.F) {
	for _, s := range bulkSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		if len(sql) < 1<<16 {
			bulkAgrees(t, sql, "app")
		}
	})
}
