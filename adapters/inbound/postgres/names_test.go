package postgres

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// namesFixture is a listener holding DELETE in front of table t with two rows.
func namesFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2)")
	return f
}

// mustHold fails unless out is the listener's approval denial and t still
// has its two rows.
func mustHold(t *testing.T, f *fixture, what, out string) {
	t.Helper()
	if n := f.count("SELECT count(*) FROM t"); n != 2 {
		t.Fatalf("%s: a DELETE ran without approval (%d rows left); the client saw: %s", what, n, out)
	}
	if !strings.Contains(out, "E[42501 statement held for human approval") {
		t.Fatalf("%s: want the approval denial, got: %s", what, out)
	}
}

// A Parse the upstream refuses because the name is taken leaves the old
// statement in place: a Bind of that name runs the old one.
func TestRefusedParseKeepsTheOldStatement(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	rc.send(&pgproto3.Parse{Name: "s1", Query: "DELETE FROM t"}, &pgproto3.Sync{})
	rc.untilReady()
	rc.send(&pgproto3.Parse{Name: "s1", Query: "SELECT 1"}, &pgproto3.Sync{})
	if out := rc.untilReady(); !strings.Contains(out, "42P05") {
		t.Fatalf("the upstream accepted a second s1: %s", out)
	}
	rc.send(&pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	mustHold(t, f, "Bind of s1 after a refused Parse", rc.untilReady())
}

// Sent in one pipeline without waiting, the refused Parse and the Bind of
// its name are decided only once the upstream has answered the Parse.
func TestPipelinedRefusedParseKeepsTheOldStatement(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	rc.send(&pgproto3.Parse{Name: "s1", Query: "DELETE FROM t"}, &pgproto3.Sync{},
		&pgproto3.Parse{Name: "s1", Query: "SELECT 1"}, &pgproto3.Sync{},
		&pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	rc.untilReady()
	rc.untilReady()
	mustHold(t, f, "pipelined Bind of s1 after a refused Parse", rc.untilReady())
}

// A SQL PREPARE refused because the name is taken leaves the old one.
func TestRefusedPrepareKeepsTheOldStatement(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	rc.q("PREPARE s1 AS DELETE FROM t")
	if out := rc.q("PREPARE s1 AS SELECT 1"); !strings.Contains(out, "42P05") {
		t.Fatalf("the upstream accepted a second s1: %s", out)
	}
	mustHold(t, f, "EXECUTE s1 after a refused PREPARE", rc.q("EXECUTE s1"))
}

// Statements made by Parse and by PREPARE share one namespace: EXECUTE runs
// a statement made by Parse.
func TestExecuteOfAParsedStatement(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	rc.send(&pgproto3.Parse{Name: "s1", Query: "DELETE FROM t"}, &pgproto3.Sync{})
	rc.untilReady()
	mustHold(t, f, "EXECUTE of a Parse'd DELETE", rc.q("EXECUTE s1"))
}

// A Close the upstream skips (after an error in its batch) leaves the
// statement in place.
func TestSkippedCloseKeepsTheStatement(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	rc.send(&pgproto3.Parse{Name: "s1", Query: "DELETE FROM t"}, &pgproto3.Sync{})
	rc.untilReady()
	rc.send(&pgproto3.Parse{Query: "SELECT 1/0"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Close{ObjectType: 'S', Name: "s1"}, &pgproto3.Sync{})
	if out := rc.untilReady(); !strings.Contains(out, "22012") || strings.Contains(out, "3 ") {
		t.Fatalf("want the division error and no CloseComplete: %s", out)
	}
	rc.send(&pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	mustHold(t, f, "Bind of s1 after a skipped Close", rc.untilReady())
}

// A Bind refused because the portal exists leaves the old portal, which a
// ROLLBACK TO SAVEPOINT makes usable again.
func TestRefusedBindKeepsTheOldPortal(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	rc.q("BEGIN")
	rc.send(&pgproto3.Parse{Name: "del", Query: "DELETE FROM t"}, &pgproto3.Parse{Name: "sel", Query: "SELECT 1"},
		&pgproto3.Bind{DestinationPortal: "p1", PreparedStatement: "del"}, &pgproto3.Sync{})
	rc.untilReady()
	rc.q("SAVEPOINT a")
	rc.send(&pgproto3.Bind{DestinationPortal: "p1", PreparedStatement: "sel"}, &pgproto3.Sync{})
	if out := rc.untilReady(); !strings.Contains(out, "42P03") {
		t.Fatalf("the upstream accepted a second p1: %s", out)
	}
	rc.q("ROLLBACK TO a")
	rc.send(&pgproto3.Execute{Portal: "p1"}, &pgproto3.Sync{})
	out := rc.untilReady()
	rc.q("COMMIT")
	mustHold(t, f, "Execute of p1 after a refused Bind", out)
}

// PREPARE and EXECUTE in one Query: the EXECUTE runs what the PREPARE before
// it made.
func TestPrepareThenExecuteInOneQuery(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	mustHold(t, f, "PREPARE; EXECUTE in one Query", rc.q("PREPARE s1 AS DELETE FROM t; EXECUTE s1"))
}

// The same in one extended-protocol batch.
func TestPrepareThenExecuteInOneBatch(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	rc.send(&pgproto3.Parse{Query: "PREPARE s2 AS DELETE FROM t"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "EXECUTE s2"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	mustHold(t, f, "PREPARE then EXECUTE in one batch", rc.untilReady())
}

// The approval of EXECUTE s1 is for what s1 runs: another session's s1 of
// the same name is another statement.
func TestApprovedExecuteIsForItsStatement(t *testing.T) {
	f := namesFixture(t)
	a := f.raw()
	a.q("PREPARE s1 AS DELETE FROM t WHERE id = 1")
	out := a.q("EXECUTE s1")
	got := ids(out)
	if len(got) != 1 {
		t.Fatalf("want one approval id: %s", out)
	}
	f.approve(got[0])
	b := f.raw()
	b.q("PREPARE s1 AS DELETE FROM t")
	mustHold(t, f, "EXECUTE s1 of another DELETE", b.q("EXECUTE s1"))
	if next := ids(b.q("EXECUTE s1")); len(next) != 1 || next[0] == got[0] {
		t.Fatalf("the other s1 must file its own approval, got %v (first %s)", next, got[0])
	}
	if out := a.q("EXECUTE s1"); !strings.Contains(out, "C[DELETE 1]") {
		t.Fatalf("the approved EXECUTE s1 did not run: %s", out)
	}
}

// A chain of statements that EXECUTE each other too deep to follow is
// refused, not passed as UNKNOWN.
func TestExecuteNestedTooDeepIsRefused(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	rc.send(&pgproto3.Parse{Name: "s0", Query: "DELETE FROM t"}, &pgproto3.Sync{})
	rc.untilReady()
	for i := 1; i <= maxNesting+1; i++ {
		rc.send(&pgproto3.Parse{Name: sprintf("s%d", i), Query: sprintf("EXECUTE s%d", i-1)}, &pgproto3.Sync{})
		rc.untilReady()
	}
	out := rc.q(sprintf("EXECUTE s%d", maxNesting+1))
	if n := f.count("SELECT count(*) FROM t"); n != 2 || !strings.Contains(out, "0A000") {
		t.Fatalf("a deep EXECUTE chain: %d rows left, client saw %s", n, out)
	}
}

// A text too deep for the analyzer is refused (0A000) on both protocols,
// and the listener keeps serving.
func TestTooDeepTextIsRefused(t *testing.T) {
	f := namesFixture(t)
	rc := f.raw()
	deep := "DELETE FROM t WHERE id = 0" + strings.Repeat(" + 0", 30000)
	if out := rc.q(deep); !strings.Contains(out, "E[0A000") {
		t.Fatalf("simple: %s", out)
	}
	rc.send(&pgproto3.Parse{Query: deep}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	if out := rc.untilReady(); !strings.Contains(out, "E[0A000") {
		t.Fatalf("extended: %s", out)
	}
	if out := rc.q("SELECT 1"); !strings.Contains(out, "C[SELECT 1]") {
		t.Fatalf("after: %s", out)
	}
	if n := f.count("SELECT count(*) FROM t"); n != 2 {
		t.Fatalf("%d rows left", n)
	}
}
