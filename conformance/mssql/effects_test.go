package mssqlconf

import (
	"context"
	"strings"
	"testing"
)

// Rules on effects (docs/rules.md, docs/mssql-listener.md "Effects"), each
// on a listener of its own in front of one database, with go-mssqldb:
// {effects: [SCHEMA_CHANGE]} holds sp_rename, which is only an EXEC by its
// kind; {effects: [UNBOUNDED]} holds a DELETE with no WHERE, as a SQLBatch
// and as an sp_executesql RPC whose WHERE names no column, and lets a
// DELETE with one reach the upstream; {effects: [OS_COMMAND]} holds
// xp_cmdshell. A held statement reaches nothing.
func TestEffectsRules(t *testing.T) {
	e := newEnv(t)
	e.direct("CREATE TABLE t (id int PRIMARY KEY)")
	e.direct("INSERT INTO t (id) VALUES (1), (2), (3), (4)")
	ctx := context.Background()
	held := func(t *testing.T, addr, stmt string, args ...any) {
		t.Helper()
		_, err := e.open(addr, "disable", "").ExecContext(ctx, stmt, args...)
		id := heldID(t, err)
		if r := e.cp.Review(t, id); !strings.Contains(r.Statement, stmt) {
			t.Fatalf("the approver does not see %q: %q", stmt, r.Statement)
		}
		if n := e.ran(stmt); n > 0 {
			t.Fatalf("the stand-in ran the held %q", stmt)
		}
	}
	runs := func(t *testing.T, addr, stmt string, args ...any) {
		t.Helper()
		if _, err := e.open(addr, "disable", "").ExecContext(ctx, stmt, args...); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		e.in(t).ranOnce(stmt)
	}

	t.Run("SCHEMA_CHANGE holds sp_rename", func(t *testing.T) {
		addr, _ := e.in(t).sidecar(listenerOpts{match: "{effects: [SCHEMA_CHANGE]}"})
		held(t, addr, "EXEC sp_rename 't', 't_old'")
		if n := e.in(t).count("SELECT COUNT(*) FROM t"); n != 4 {
			t.Fatalf("t has %d rows after the held rename, want 4", n)
		}
		runs(t, addr, "INSERT INTO t (id) VALUES (5)") // INSERT is no SCHEMA_CHANGE
	})

	t.Run("UNBOUNDED holds DELETE without WHERE only", func(t *testing.T) {
		addr, _ := e.in(t).sidecar(listenerOpts{match: "{effects: [UNBOUNDED]}"})
		held(t, addr, "DELETE FROM t")
		held(t, addr, "DELETE FROM t WHERE 1 = 1")
		held(t, addr, "DELETE FROM t WHERE 1 = @p1", 1) // sp_executesql: the RPC's text is read
		if n := e.in(t).count("SELECT COUNT(*) FROM t"); n != 5 {
			t.Fatalf("t has %d rows after the held DELETEs, want 5", n)
		}
		runs(t, addr, "DELETE FROM t WHERE id = 1")
		runs(t, addr, "DELETE FROM t WHERE id = @p1", 2)
		for _, q := range []string{"SELECT COUNT(*) FROM t WHERE id = 1", "SELECT COUNT(*) FROM t WHERE id = 2"} {
			if n := e.in(t).count(q); n != 0 {
				t.Fatalf("%s: %d after the bounded DELETE, want 0", q, n)
			}
		}
		if n := e.in(t).count("SELECT COUNT(*) FROM t"); n != 3 {
			t.Fatalf("t has %d rows, want 3", n)
		}
	})

	t.Run("OS_COMMAND holds xp_cmdshell", func(t *testing.T) {
		addr, _ := e.in(t).sidecar(listenerOpts{match: "{effects: [OS_COMMAND]}"})
		held(t, addr, "EXEC xp_cmdshell 'dir'")
		runs(t, addr, "DELETE FROM t WHERE id = 3") // no OS command
	})
}
