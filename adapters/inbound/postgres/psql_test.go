package postgres

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

const returnApp = "demo hoop-approval=return"

// The spec's walk-through with the real psql: denied with the spec's text
// and an approval id, the session stays open, approval, the identical
// resend runs once, a further send gets a new approval.
func TestPsqlHeldApprovedResend(t *testing.T) {
	f := newFixture(t, withMode(app.ModeWait))
	f.direct("CREATE TABLE t (id int)")

	out := f.psql(returnApp, "DROP TABLE t;\nSELECT 1 AS alive;\n")
	want := "ERROR:  statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval "
	if !strings.Contains(out, want) {
		t.Fatalf("psql did not print the spec's text:\n%s", out)
	}
	if !strings.Contains(out, "alive") || !strings.Contains(out, "     1") {
		t.Fatalf("SELECT 1 on the same session did not work:\n%s", out)
	}
	first := ids(out)
	if len(first) != 1 {
		t.Fatalf("want one approval id in:\n%s", out)
	}
	if n := f.count("SELECT count(*) FROM pg_tables WHERE tablename = 't'"); n != 1 {
		t.Fatal("the held DROP TABLE ran")
	}

	f.approve(first[0])
	out = f.psql(returnApp, "DROP TABLE t;\n")
	if !strings.Contains(out, "DROP TABLE") || strings.Contains(out, "ERROR") {
		t.Fatalf("the approved resend did not run:\n%s", out)
	}
	if n := f.count("SELECT count(*) FROM pg_tables WHERE tablename = 't'"); n != 0 {
		t.Fatal("table still there after the approved DROP")
	}
	if st := f.status(first[0]); st != domain.StatusExecuted {
		t.Fatalf("approval is %s, want EXECUTED", st)
	}

	out = f.psql(returnApp, "DROP TABLE t;\n")
	again := ids(out)
	if len(again) != 1 || again[0] == first[0] {
		t.Fatalf("a send after EXECUTED must get a new approval id, got %v:\n%s", again, out)
	}
}
