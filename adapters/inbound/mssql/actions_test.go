package mssql

import "testing"

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
