package postgres

import (
	"regexp"
	"strings"
	"testing"
)

// The whole loop of "only a person asks again", with the real binaries and
// psql in return mode: DROP TABLE is held; `controlplane reject` refuses it
// and every resend (also after a Control Plane restart) is denied REJECTED
// with the same id; `controlplane reopen` files a new PENDING request, which
// the resend finds; `controlplane approve` lets the next resend run, once;
// the send after that files a new request again.
func TestRejectedStatementReopenedApprovedRunsOnce(t *testing.T) {
	e := newEnv(t)
	addr := e.sidecar("sent")
	e.direct("CREATE TABLE hoop_demo (id int)")
	send := func() (string, string) {
		t.Helper()
		out := e.psql(addr, returnApp, "DROP TABLE hoop_demo;\n")
		ids := approvalIDs(out)
		if len(ids) != 1 {
			t.Fatalf("want one approval id in the denial:\n%s", out)
		}
		return ids[0], out
	}

	rejected, _ := send()
	e.cp.CLI(t, "reject", rejected, "--reason", "not during the freeze")
	e.cp.Restart(t) // the rejection lives in the Control Plane's store, not in a process
	for i := 0; i < 2; i++ {
		id, out := send()
		if id != rejected || !strings.Contains(out, "ERROR:  statement held for human approval: rejected by a person (not during the freeze); do not resend; only a person can ask again (approval "+rejected+")") {
			t.Fatalf("resend %d after the rejection: want it denied REJECTED as %s:\n%s", i+1, rejected, out)
		}
	}
	if out, err := e.cp.TryCLI("approve", rejected); err == nil || !strings.Contains(out, "it is REJECTED (approve needs PENDING); to ask again, reopen it (controlplane reopen "+rejected+") (conflict, HTTP 409)") {
		t.Fatalf("approving the rejection must stay refused: %v\n%s", err, out)
	}

	out := e.cp.CLI(t, "reopen", rejected)
	m := regexp.MustCompile(`^reopened ` + rejected + ` \(was REJECTED\) as ([0-9a-f-]{36}) \(PENDING\)\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("controlplane reopen printed %q", out)
	}
	reopened := m[1]
	id, out := send()
	if id != reopened || !strings.Contains(out, "ERROR:  statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval "+reopened+")") {
		t.Fatalf("the resend after reopen must find the new PENDING request %s:\n%s", reopened, out)
	}
	if e.count("SELECT count(*) FROM pg_tables WHERE tablename = 'hoop_demo'") != 1 {
		t.Fatal("the table is gone before anyone approved")
	}

	e.cp.CLI(t, "approve", reopened)
	out = e.psql(addr, returnApp, "DROP TABLE hoop_demo;\n")
	if !strings.Contains(out, "DROP TABLE") || strings.Contains(out, "ERROR") {
		t.Fatalf("the approved resend did not run:\n%s", out)
	}
	if e.count("SELECT count(*) FROM pg_tables WHERE tablename = 'hoop_demo'") != 0 {
		t.Fatal("table hoop_demo is still there")
	}
	if r := e.cp.Review(t, reopened); r.Status != "EXECUTED" {
		t.Fatalf("the reopened approval is %s, want EXECUTED", r.Status)
	}
	if r := e.cp.Review(t, rejected); r.Status != "REJECTED" {
		t.Fatalf("the rejection is %s after the loop, want it kept REJECTED", r.Status)
	}

	next, out := send()
	if next == rejected || next == reopened || !strings.Contains(out, "waiting for approval") {
		t.Fatalf("the send after the approved run must file a new request:\n%s", out)
	}
}
