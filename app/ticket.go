package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hoophq/sidecar/ports"
)

// Ticket is a claimed approval under spend_approval_on: accepted. The gate
// counts it as open until it is settled (Gate.SettleOpen).
type Ticket struct {
	gate     *Gate
	id       string
	audit    ports.AuditEvent
	once     sync.Once
	finished chan struct{} // closed when the settle has run; nil in tests that build a Ticket by hand
}

// ApprovalID returns the claimed approval's id ("" on a nil Ticket).
func (t *Ticket) ApprovalID() string {
	if t == nil {
		return ""
	}
	return t.id
}

// Settle tells the Control Plane how the upstream answered: accepted spends
// the approval (EXECUTED), refused gives it back (APPROVED). It is safe on a
// nil Ticket and runs at most once. It uses its own 10 s budget, so a client
// that hung up does not leave the approval PROCESSING.
//
// An accepted settle that meets an unavailable Control Plane is tried up to
// three times: if an earlier try did land, a retry can only spend an
// approval early, never run a statement twice. A refused settle is tried
// once: a retry could give back an approval another request has claimed
// since. A request left PROCESSING is cleared by a person with revoke.
func (t *Ticket) Settle(accepted bool) { t.settle(accepted, 10*time.Second) }

// settle settles t once within budget; a second call waits (up to budget)
// for the first to finish.
func (t *Ticket) settle(accepted bool, budget time.Duration) {
	if t == nil {
		return
	}
	ran := false
	t.once.Do(func() {
		ran = true
		t.run(accepted, budget)
		t.gate.lc.untrack(t)
		if t.finished != nil {
			close(t.finished)
		}
	})
	if !ran && t.finished != nil {
		select {
		case <-t.finished:
		case <-time.After(budget):
		}
	}
}

func (t *Ticket) run(accepted bool, budget time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	tries := 1
	if accepted {
		tries = 3
	}
	var err error
	for i := 0; i < tries; i++ {
		if _, err = t.gate.CP.Settle(ctx, t.id, accepted); err == nil || !errors.Is(err, ports.ErrUnavailable) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(i+1) * 500 * time.Millisecond):
		}
	}
	e := t.audit
	e.Time = t.gate.Clock.Now().UTC()
	e.Decision = map[bool]string{true: "settle_accepted", false: "settle_refused"}[accepted]
	if err != nil {
		e.Error = err.Error()
		t.gate.Log.Error("could not settle approval", "approval_id", t.id, "accepted", accepted, "error", err)
	}
	t.gate.record(e)
}

// String is for logs.
func (t *Ticket) String() string { return fmt.Sprintf("ticket(%s)", t.ApprovalID()) }
