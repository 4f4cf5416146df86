package app_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

func TestAllow(t *testing.T) {
	e := newEnv(t, envOpts{})
	o := e.check(stmt("SELECT", "SELECT 1"))
	if !o.Forward || o.Denial != nil || o.Ticket != nil {
		t.Fatalf("outcome %+v, want forward", o)
	}
	if n := len(e.cp.Records()); n != 0 {
		t.Fatalf("%d approvals filed for an allowed statement", n)
	}
	if got := e.audit.decisions(); !reflect.DeepEqual(got, []string{"allow"}) {
		t.Fatalf("audit %v", got)
	}
}

func TestPolicyDenial(t *testing.T) {
	e := newEnv(t, envOpts{})
	d := mustDeny(t, e.check(stmt("DROP_DATABASE", "DROP DATABASE payments")))
	if d.Kind != domain.DeniedByPolicy || d.DeniedValue() != "policy" || d.Rule != "no-drop-db" || d.ApprovalID != "" ||
		d.RetryAfter || d.Message != "statement denied by policy no-drop-db: dropping a database is never allowed" {
		t.Fatalf("denial %+v", d)
	}
	if n := len(e.cp.Records()); n != 0 {
		t.Fatalf("%d approvals filed for a policy denial", n)
	}
}

func TestReturnModeDenial(t *testing.T) {
	for _, mcp := range []bool{false, true} {
		e := newEnv(t, envOpts{withMCP: mcp})
		d := mustDeny(t, e.check(deleteInvoice))
		recs := e.cp.Records()
		if len(recs) != 1 {
			t.Fatalf("%d approvals filed, want 1", len(recs))
		}
		id := recs[0].ID
		if d.Kind != domain.DeniedForApproval || d.DeniedValue() != "review" || d.ApprovalID != id ||
			d.Status != domain.StatusPending || !d.RetryAfter || d.Rule != "db-destructive" {
			t.Fatalf("denial %+v", d)
		}
		want := "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval " + id + ")"
		if mcp {
			want = "approval " + id + ": waiting for approval; call the MCP tool approval_wait with the approval id, then resend the identical statement once it is approved (statement held for human approval)"
		}
		if d.Message != want {
			t.Fatalf("message\n got %q\nwant %q", d.Message, want)
		}
		r := recs[0]
		if r.ListenerName != "pg" || r.ApprovalRule != "db-destructive" || r.Statement != "DELETE FROM invoices WHERE id = $1" ||
			r.Identity != "agent" || r.Protocol != "postgres" || !strings.HasPrefix(r.Fingerprint, "v1:") {
			t.Fatalf("filed %+v", r)
		}
		ev := e.audit.events[0]
		if ev.Decision != "deny_approval" || ev.ApprovalID != id || ev.Status != "PENDING" || ev.Fingerprint != r.Fingerprint {
			t.Fatalf("audit %+v", ev)
		}
	}
}

func TestReturnModeAskedByTheClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		e := newEnv(t, envOpts{mode: app.ModeWait})
		st := deleteInvoice
		st.ReturnMode = true
		done := make(chan app.Outcome, 1)
		go func() { done <- e.check(st) }()
		select {
		case o := <-done:
			if d := mustDeny(t, o); d.Status != domain.StatusPending || !d.RetryAfter {
				t.Fatalf("denial %+v", d)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a client asking for return mode was held")
		}
	})
}

func TestReuse(t *testing.T) {
	e := newEnv(t, envOpts{})
	first := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	again := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	if again != first {
		t.Fatalf("identical statement filed %s then %s, want one request", first, again)
	}
	other := mustDeny(t, e.check(stmt("DELETE", "DELETE FROM invoices WHERE id = $1", "43"))).ApprovalID
	if other == first {
		t.Fatal("different parameters reused the same approval")
	}
	otherUser := deleteInvoice
	otherUser.Identity = "someone-else"
	if id := mustDeny(t, e.check(otherUser)).ApprovalID; id == first || id == other {
		t.Fatal("another login reused the approval")
	}
	if n := len(e.cp.Records()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
}

func TestApprovedResendRunsOnceThenFilesNew(t *testing.T) {
	e := newEnv(t, envOpts{})
	id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	if err := e.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	o := e.check(deleteInvoice)
	if !o.Forward || o.Ticket == nil {
		t.Fatalf("resend after approval: %+v, want forward with a ticket", o)
	}
	// spend_approval_on: sent: PROCESSING until the statement is written,
	// then EXECUTED (Sent; the Spend that follows waits for its settle).
	if st := e.status(t, id); st != domain.StatusProcessing {
		t.Fatalf("approval %s before the statement was written, want PROCESSING", st)
	}
	o.Ticket.Sent()
	o.Ticket.Spend()
	if st := e.status(t, id); st != domain.StatusExecuted {
		t.Fatalf("approval %s after the resend was written, want EXECUTED", st)
	}
	d := mustDeny(t, e.check(deleteInvoice))
	if d.ApprovalID == id || d.Status != domain.StatusPending {
		t.Fatalf("the next send: %+v, want a new PENDING request", d)
	}
}

func TestApprovedResendRunsOnceUnderConcurrency(t *testing.T) {
	e := newEnv(t, envOpts{})
	id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	if err := e.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	forwards := 0
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if o := e.check(deleteInvoice); o.Forward {
				mu.Lock()
				forwards++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if forwards != 1 {
		t.Fatalf("%d identical resends forwarded, want exactly 1", forwards)
	}
}

func TestRejectedResendIsStopped(t *testing.T) {
	e := newEnv(t, envOpts{})
	id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	if err := e.cp.Decide(id, domain.StatusRejected, "not during the freeze"); err != nil {
		t.Fatal(err)
	}
	d := mustDeny(t, e.check(deleteInvoice))
	want := "statement held for human approval: rejected by a person (not during the freeze); do not resend; only a person can ask again (approval " + id + ")"
	if d.ApprovalID != id || d.Status != domain.StatusRejected || d.RetryAfter || d.Message != want {
		t.Fatalf("denial %+v\nwant message %q", d, want)
	}
	if n := len(e.cp.Records()); n != 1 {
		t.Fatalf("a rejected statement filed a new request (%d records)", n)
	}
}

func TestRevokedResendIsStopped(t *testing.T) {
	e := newEnv(t, envOpts{})
	id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	_ = e.cp.Decide(id, domain.StatusApproved, "")
	if err := e.cp.Decide(id, domain.StatusRevoked, ""); err != nil {
		t.Fatal(err)
	}
	d := mustDeny(t, e.check(deleteInvoice))
	if d.ApprovalID != id || d.Status != domain.StatusRevoked || d.RetryAfter || !strings.Contains(d.Message, "do not resend") {
		t.Fatalf("denial %+v", d)
	}
}

func TestWaitModeForwardsAfterApproval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		e := newEnv(t, envOpts{mode: app.ModeWait})
		done := make(chan app.Outcome, 1)
		go func() { done <- e.check(deleteInvoice) }()
		synctest.Wait() // filed, and waiting
		if recs := e.cp.Records(); len(recs) != 1 {
			t.Fatalf("%d requests filed, want 1", len(recs))
		}
		_ = e.cp.Decide(e.cp.Records()[0].ID, domain.StatusApproved, "")
		o := <-done
		if !o.Forward {
			t.Fatalf("wait mode after approval: %+v, want forward", o)
		}
		o.Ticket.Sent()
		o.Ticket.Spend()
		if st := e.cp.Records()[0].Status; st != domain.StatusExecuted {
			t.Fatalf("approval %s, want EXECUTED", st)
		}
	})
}

func TestWaitModeRejectedAndTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: 200 * time.Millisecond})
		d := mustDeny(t, e.check(deleteInvoice)) // nobody decides: the wait ends
		if d.Status != domain.StatusPending || d.RetryAfter {
			t.Fatalf("timed-out wait: %+v, want PENDING without Retry-After (not return mode)", d)
		}
		go func() {
			time.Sleep(30 * time.Millisecond)
			_ = e.cp.Decide(d.ApprovalID, domain.StatusRejected, "")
		}()
		d2 := mustDeny(t, e.check(deleteInvoice))
		if d2.ApprovalID != d.ApprovalID || d2.Status != domain.StatusRejected {
			t.Fatalf("rejected while waiting: %+v", d2)
		}
	})
}

func TestSpendOnAccepted(t *testing.T) {
	e := newEnv(t, envOpts{spend: ports.SpendOnAccepted})
	id := mustDeny(t, e.check(deleteInvoice)).ApprovalID
	_ = e.cp.Decide(id, domain.StatusApproved, "")

	o := e.check(deleteInvoice)
	if !o.Forward || o.Ticket == nil || o.Ticket.ApprovalID() != id {
		t.Fatalf("claim: %+v, want forward with a ticket for %s", o, id)
	}
	if st := e.status(t, id); st != domain.StatusProcessing {
		t.Fatalf("after the claim %s, want PROCESSING", st)
	}
	// Meanwhile an identical statement waits: the approval is in use.
	d := mustDeny(t, e.check(deleteInvoice))
	if d.ApprovalID != id || d.Status != domain.StatusProcessing || d.RetryAfter {
		t.Fatalf("while PROCESSING: %+v", d)
	}
	o.Ticket.GiveBack(domain.RefusedBeforeRun("ErrorResponse 42601")) // the upstream refused before running it
	if st := e.status(t, id); st != domain.StatusApproved {
		t.Fatalf("after a give-back %s, want APPROVED", st)
	}
	o.Ticket.Spend() // a second settle on the same ticket does nothing
	if st := e.status(t, id); st != domain.StatusApproved {
		t.Fatalf("a second Settle changed the status to %s", st)
	}

	o2 := e.check(deleteInvoice)
	if !o2.Forward || o2.Ticket == nil {
		t.Fatalf("resend after give-back: %+v", o2)
	}
	o2.Ticket.Spend()
	if st := e.status(t, id); st != domain.StatusExecuted {
		t.Fatalf("after an accepted settle %s, want EXECUTED", st)
	}
	var nilTicket *app.Ticket
	nilTicket.Spend() // safe
	nilTicket.GiveBack(domain.NotSent("x"))
	want := []string{"deny_approval", "forward_approved", "deny_approval", "settle_refused", "forward_approved", "settle_accepted"}
	if got := e.audit.decisions(); !reflect.DeepEqual(got, want) {
		t.Fatalf("audit %v, want %v", got, want)
	}
}

func TestControlPlaneFailingFailsClosed(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.cp.Fail = ports.ErrUnavailable
	d := mustDeny(t, e.check(deleteInvoice))
	if d.Kind != domain.DeniedUnavailable || d.DeniedValue() != "policy" || d.ApprovalID != "" ||
		!strings.Contains(d.Message, "Control Plane is unreachable") || !strings.Contains(d.Message, ports.ErrUnavailable.Error()) {
		t.Fatalf("denial %+v", d)
	}
	if o := e.check(stmt("SELECT", "SELECT 1")); !o.Forward {
		t.Fatalf("a statement needing no approval was stopped: %+v", o)
	}
	if d := mustDeny(t, e.check(stmt("DROP_DATABASE", "DROP DATABASE x"))); d.Kind != domain.DeniedByPolicy {
		t.Fatalf("policy denial changed: %+v", d)
	}
}

// A refused Sidecar token is said as such: the agent is not told the
// Control Plane is unreachable (retrying would not help), and the text names
// neither the token nor the Control Plane's address.
func TestRefusedSidecarTokenIsSaid(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.cp.Fail = fmt.Errorf("control plane file: %w (HTTP 401): http://cp.internal:8080 token s3cret", ports.ErrUnauthorized)
	d := mustDeny(t, e.check(deleteInvoice))
	if d.Kind != domain.DeniedUnavailable || d.DeniedValue() != "policy" ||
		!strings.Contains(d.Message, "the Control Plane refused the Sidecar token") || strings.Contains(d.Message, "unreachable") ||
		strings.Contains(d.Message, "cp.internal") || strings.Contains(d.Message, "s3cret") {
		t.Fatalf("denial %+v", d)
	}
}

func TestNoControlPlaneFailsClosed(t *testing.T) {
	e := newEnv(t, envOpts{noCP: true})
	if d := mustDeny(t, e.check(deleteInvoice)); d.Kind != domain.DeniedUnavailable {
		t.Fatalf("denial %+v", d)
	}
	if o := e.check(stmt("SELECT", "SELECT 1")); !o.Forward {
		t.Fatalf("%+v", o)
	}
}

// getFails files through the fake but fails every read.
type getFails struct{ ports.ControlPlane }

func (getFails) Get(context.Context, string) (domain.Approval, error) {
	return domain.Approval{}, ports.ErrUnavailable
}

func TestStatusUnknownAfterFile(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.cp.HideStatusOnFile = true
	d := mustDeny(t, e.check(deleteInvoice))
	if d.Status != domain.StatusPending || !d.RetryAfter {
		t.Fatalf("status read with Get: %+v, want PENDING", d)
	}

	fake := fakecp.New(nil)
	fake.HideStatusOnFile = true
	e2 := newEnv(t, envOpts{cp: getFails{fake}})
	d = mustDeny(t, e2.check(deleteInvoice))
	if d.Kind != domain.DeniedForApproval || d.Status != "" || d.RetryAfter || d.ApprovalID == "" {
		t.Fatalf("denial %+v, want an approval denial without a status", d)
	}
	want := "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval " + d.ApprovalID + ")"
	if d.Message != want {
		t.Fatalf("message %q", d.Message)
	}
}

func TestQueriesWithoutControlPlane(t *testing.T) {
	e := newEnv(t, envOpts{noCP: true})
	q := e.l.Approvals()
	if q.HasControlPlane() {
		t.Fatal("HasControlPlane without one")
	}
	if _, err := q.Status(context.Background(), "x"); !errors.Is(err, app.ErrNoControlPlane) {
		t.Fatalf("Status err = %v", err)
	}
	if _, _, _, err := q.Wait(context.Background(), "x", time.Second); !errors.Is(err, app.ErrNoControlPlane) {
		t.Fatalf("Wait err = %v", err)
	}
	if _, err := q.List(context.Background(), "", 20); !errors.Is(err, app.ErrNoControlPlane) {
		t.Fatalf("List err = %v", err)
	}
}

// A wait-mode statement waits out a Control Plane outage: reads that fail in
// the middle of the wait do not deny it, and the approval given meanwhile
// forwards it once the Control Plane answers again.
func TestWaitModeSurvivesAnOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		cp := &flakyCP{CP: fakecp.New(nil)}
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: 20 * time.Second, cp: cp})
		go func() {
			synctest.Wait() // filed, and waiting
			n := cp.reads.Load()
			cp.failWith(ports.ErrUnavailable)
			cp.untilReads(n + 5) // five failed reads
			_ = cp.Decide(cp.Records()[0].ID, domain.StatusApproved, "")
			cp.failWith(nil)
		}()
		o := e.check(deleteInvoice)
		if !o.Forward {
			t.Fatalf("wait mode through an outage: %+v, want forward", o)
		}
		o.Ticket.Spend()
	})
}

// A Control Plane still failing at the listener's wait deadline denies the
// statement as unavailable (fail closed).
func TestWaitModeOutageAtTheDeadlineDenies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer readersEnd()
		cp := &flakyCP{CP: fakecp.New(nil)}
		e := newEnv(t, envOpts{mode: app.ModeWait, wait: 300 * time.Millisecond, cp: cp})
		go func() {
			synctest.Wait() // filed, and waiting
			cp.failWith(ports.ErrUnavailable)
		}()
		d := mustDeny(t, e.check(deleteInvoice))
		if d.Kind != domain.DeniedUnavailable || !strings.Contains(d.Message, ports.ErrUnavailable.Error()) {
			t.Fatalf("denial %+v, want unavailable", d)
		}
	})
}

// CheckAllowed takes an allow on its own (recorded as CheckWith would) and
// leaves anything a rule decides to CheckWith, with the same outcome and
// the same fingerprint as a CheckWith alone; the canonical bytes are built
// only for the held statement.
func TestCheckAllowed(t *testing.T) {
	e := newEnv(t, envOpts{})
	set := e.l.Settings()
	built := 0
	lazy := func(st app.Statement) app.Statement {
		canonical := st.Canonical
		st.Canonical, st.Canonicalize = nil, func() []byte { built++; return canonical }
		return st
	}
	sel := lazy(stmt("SELECT", "SELECT 1"))
	if !e.l.CheckAllowed(set, &sel) || sel.Evaluation != nil {
		t.Fatalf("SELECT not taken as an allow (evaluation %+v)", sel.Evaluation)
	}
	if got := e.audit.decisions(); !reflect.DeepEqual(got, []string{"allow"}) || built != 0 || e.audit.events[0].Statement != "SELECT 1" {
		t.Fatalf("audit %v (statement %q), canonical built %d times", got, e.audit.events[0].Statement, built)
	}
	del := lazy(deleteInvoice)
	if e.l.CheckAllowed(set, &del) || del.Evaluation == nil || del.Evaluation.Verdict != domain.VerdictApproval {
		t.Fatalf("DELETE taken as an allow (evaluation %+v)", del.Evaluation)
	}
	if n := len(e.audit.events); n != 1 || len(e.cp.Records()) != 0 {
		t.Fatalf("CheckAllowed of a held statement recorded %d events, filed %d approvals", n-1, len(e.cp.Records()))
	}
	mustDeny(t, e.l.CheckWith(context.Background(), set, del))
	mustDeny(t, e.check(deleteInvoice))
	recs := e.cp.Records()
	if len(recs) != 1 || built != 1 {
		t.Fatalf("%d approvals for one statement checked twice (lazy, then plain; canonical built %d times)", len(recs), built)
	}
}

// A give-back without proof spends: the zero domain.NothingRan proves
// nothing, so an adapter that has no proof cannot give an approval back.
// Tickets.SpendAll, at a connection's end, spends what is still claimed and
// leaves settled tickets alone.
func TestGiveBackNeedsProofAndConnectionEndSpends(t *testing.T) {
	e := newEnv(t, envOpts{spend: ports.SpendOnAccepted})
	claim := func(p string) (string, *app.Ticket) {
		st := stmt("DELETE", "DELETE FROM invoices WHERE id = $1", p)
		id := mustDeny(t, e.check(st)).ApprovalID
		_ = e.cp.Decide(id, domain.StatusApproved, "")
		o := e.check(st)
		if o.Ticket == nil {
			t.Fatalf("claim %s: %+v", id, o)
		}
		return id, o.Ticket
	}
	id1, t1 := claim("1")
	t1.GiveBack(domain.NothingRan{})
	if st := e.status(t, id1); st != domain.StatusExecuted {
		t.Fatalf("give-back without proof left %s, want EXECUTED", st)
	}
	id2, t2 := claim("2")
	id3, t3 := claim("3")
	var conn app.Tickets
	conn.Add(t2)
	conn.Add(t3)
	conn.Add(nil)
	t2.GiveBack(domain.RefusedBeforeRun("ERR 1064"))
	if n := conn.SpendAll(); n != 1 {
		t.Fatalf("SpendAll spent %d, want 1", n)
	}
	if st := e.status(t, id2); st != domain.StatusApproved {
		t.Fatalf("given-back approval %s after SpendAll, want APPROVED", st)
	}
	if st := e.status(t, id3); st != domain.StatusExecuted {
		t.Fatalf("approval open at the connection's end is %s, want EXECUTED", st)
	}
}
