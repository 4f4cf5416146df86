package mssql

import (
	"context"
	"errors"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// spend_approval_on: accepted gives an approval back only when nothing of
// the request can have run (wait.go, spends).

// refusedWith is a DONE(ERROR) answer with one ERROR 547, after done.
func refusedWith(done []byte) []byte {
	out := append(done, tdstest.Error(547, 16, "The DELETE statement conflicted with the REFERENCE constraint.")...)
	return (&tds.Done{Status: tds.DoneError}).Append(out)
}

// answering makes the upstream answer the batch q with reply (nil: only an
// Attention ends it), recorded as run; f.wait is signalled when it arrives.
func answering(f **fixture, q string, reply []byte) option {
	return func(_ *app.ListenerSettings, _ *app.CoreOptions, up *tdstest.Server) {
		onBatch := up.OnBatch
		up.OnBatch = func(b *tds.SQLBatch) []byte {
			if b.Text != q {
				return onBatch(b)
			}
			(*f).mu.Lock()
			(*f).ran = append((*f).ran, q)
			(*f).mu.Unlock()
			(*f).wait <- struct{}{}
			return reply
		}
	}
}

// approvedOnce files q's approval, approves it and sends q again with ctx.
func approvedOnce(t *testing.T, f *fixture, ctx context.Context, q string) string {
	t.Helper()
	c := f.conn(returnApp)
	_, err := c.ExecContext(context.Background(), q)
	id := heldID(t, err)
	f.approve(id)
	c.ExecContext(ctx, q)
	return id
}

func wantStatus(t *testing.T, f *fixture, id string, want domain.Status) {
	t.Helper()
	if a, _ := f.cp.Get(context.Background(), id); a.Status != want {
		t.Fatalf("the approval is %s, want %s", a.Status, want)
	}
}

// One statement the upstream refused ran nothing: the approval is back.
func TestSpendOnAccepted(t *testing.T) {
	const q = "DELETE FROM t"
	var f *fixture
	f = newFixture(t, withSpend("accepted"), answering(&f, q, refusedWith(nil)))
	wantStatus(t, f, approvedOnce(t, f, context.Background(), q), domain.StatusApproved)
}

// Statements that report nothing may have run before the error: SET
// NOCOUNT ON drops the DONEINPROC of each statement of an sp_executesql or
// a procedure (so a batch's answer can look like a refusal of the whole),
// and a block or loop is one statement to the analyzer. Spent.
func TestSpendOnAcceptedErrorAfterUncountedStatements(t *testing.T) {
	for _, q := range []string{
		"SET NOCOUNT ON; DELETE FROM t; SELECT 1/0",
		"BEGIN DELETE FROM a; DELETE FROM b END",
		"EXEC('DELETE FROM a; SELECT 1/0')",
	} {
		var f *fixture
		f = newFixture(t, withSpend("accepted"), answering(&f, q, refusedWith(nil)))
		wantStatus(t, f, approvedOnce(t, f, context.Background(), q), domain.StatusExecuted)
	}
}

// An error raised inside a module (a trigger's RAISERROR, a function's
// error: ERROR's ProcName is set) can leave the statement's own change in
// place: an AFTER trigger that raises an error without rolling back leaves
// the DELETE done under autocommit. Spent.
func TestSpendOnAcceptedErrorInATrigger(t *testing.T) {
	const q = "DELETE FROM t"
	e := &tds.ErrorInfo{Number: 50000, State: 1, Class: 16, Message: "not now", ServerName: "tdstest", ProcName: "trg_t_audit", Line: 3}
	var f *fixture
	f = newFixture(t, withSpend("accepted"), answering(&f, q, (&tds.Done{Status: tds.DoneError}).Append(e.Append(nil, tds.TokenError))))
	wantStatus(t, f, approvedOnce(t, f, context.Background(), q), domain.StatusExecuted)
}

// An Attention discards what the server had not sent yet: a statement
// that completed just before it reports only DONE(ATTN). Spent.
func TestSpendOnAcceptedCancelledAfterForwarding(t *testing.T) {
	const q = "DELETE FROM t"
	var f *fixture
	f = newFixture(t, withSpend("accepted"), answering(&f, q, nil))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.wait; cancel() }()
	id := approvedOnce(t, f, ctx, q)
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatal("not cancelled")
	}
	wantStatus(t, f, id, domain.StatusExecuted)
}
