package mssql

import (
	"strings"
	"testing"
)

// sidecar validate asks about actions before anything was parsed: the
// vocabulary must be complete then (DROP_TABLE comes from the grammar).
func TestCheckActionBeforeAnyParse(t *testing.T) {
	p := New(nil)
	for _, a := range []string{"DELETE", "drop_table", "DROP", "UNKNOWN", "EXEC", "TRUNCATE", "MERGE"} {
		if err := p.CheckAction(a); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	if p.CheckAction("DORP") == nil {
		t.Error("DORP accepted")
	}
}

// The upstream is one host:port that the listener dials: not a URL, not a
// connection string, not a named instance (which SQL Server Browser would
// resolve to a port), not a host without its port. validate says so rather
// than every login failing with "cannot reach".
func TestCheckUpstream(t *testing.T) {
	p := New(nil)
	for _, good := range []string{"127.0.0.1:1433", "db.internal:1433", "[::1]:1433"} {
		if err := p.CheckUpstream(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for _, bad := range []string{"127.0.0.1", "db.internal", "sqlserver://db:1433", `db\SQLEXPRESS`, `db\SQLEXPRESS:1433`, "db,1433", ":1433", "user@db:1433"} {
		if p.CheckUpstream(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A near miss names the action meant: EXECUTE (T-SQL's long form) is EXEC,
// drop-table is DROP_TABLE.
func TestCheckActionSuggests(t *testing.T) {
	p := New(nil)
	for a, want := range map[string]string{"EXECUTE": "EXEC", "execute": "EXEC", "drop-table": "DROP_TABLE"} {
		err := p.CheckAction(a)
		if err == nil || !strings.Contains(err.Error(), "did you mean "+want+"?") {
			t.Errorf("%s: %v", a, err)
		}
	}
	if err := p.CheckAction("DORP"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("DORP: %v", err)
	}
}
