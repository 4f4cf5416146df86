package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// Ticket is a claimed approval: the claim moved it to PROCESSING under its
// key, and the listener settles it. Under spend_approval_on: accepted the
// upstream's answer spends it or, with proof that nothing ran, gives it
// back. Under spend_approval_on: sent it is spent as soon as the statement
// was written to the upstream (Sent) and given back only when it was not
// (domain.NotSent), so EXECUTED means forwarded. The gate counts it as open
// until it is settled (Gate.SettleOpen).
type Ticket struct {
	gate     *Gate
	id       string
	sent     bool           // the claim was under spend_approval_on: sent
	key      ports.ClaimKey // the winning claim's (ports.ClaimKey)
	audit    ports.AuditEvent
	once     sync.Once
	done     atomic.Bool   // set when the settle begins
	finished chan struct{} // closed when the settle has run; nil in tests that build a Ticket by hand
	stop     chan struct{} // closed when the settle has run, ending renew (nil: no renewals)
}

// ApprovalID returns the claimed approval's id ("" on a nil Ticket).
func (t *Ticket) ApprovalID() string {
	if t == nil {
		return ""
	}
	return t.id
}

// Spend tells the Control Plane that the statement was forwarded and its
// outcome is not proved void: the approval is spent (EXECUTED). Call it for
// an upstream that accepted the statement, and for every outcome that is
// partial, unknown or lost (domain.NothingRan). It is safe on a nil Ticket
// and settles at most once: after GiveBack or an earlier Spend it does
// nothing, so `defer out.Ticket.Spend()` right after the gate's answer
// makes a path that forgets to settle spend. It uses its own 10 s budget,
// so a client that hung up does not leave the approval PROCESSING.
//
// A settle that meets an unavailable Control Plane is tried up to three
// times (and the client retries each, ports.ClaimKey): it carries the
// claim's key, so a try that did land is answered again and a retry cannot
// touch another attempt's claim. A request left PROCESSING (every try
// failed) is settled EXECUTED by the Control Plane when its lease lapses
// (keepLease), or by a person with revoke.
func (t *Ticket) Spend() { t.settle(domain.NothingRan{}, 10*time.Second) }

// GiveBack returns the approval to APPROVED, so the agent may resend, when
// proof shows that nothing of the statement ran (domain.NothingRan); with a
// zero proof it spends, as Spend does. It is safe on a nil Ticket and
// settles at most once. It is retried as Spend is only for a claim whose
// answer echoed its key (ports.EchoedClaimKey: the key keeps a retry from
// giving back an approval another attempt claimed since); otherwise it is
// tried once.
func (t *Ticket) GiveBack(proof domain.NothingRan) { t.settle(proof, 10*time.Second) }

// Sent tells the ticket that the statement was written to the upstream
// whole. Under spend_approval_on: sent it spends the approval (EXECUTED)
// without waiting for the Control Plane's answer; a Spend or GiveBack that
// follows waits for that settle (up to its budget), so a listener that
// settles before it relays the answer relays it with the approval
// EXECUTED. Under spend_approval_on: accepted it does nothing: the answer
// decides. Safe on a nil Ticket.
func (t *Ticket) Sent() {
	if t == nil || !t.sent || t.settled() {
		return
	}
	go t.Spend()
}

// settle settles t once within budget; a second call waits (up to budget)
// for the first to finish.
func (t *Ticket) settle(proof domain.NothingRan, budget time.Duration) {
	if t == nil {
		return
	}
	ran := false
	t.once.Do(func() {
		ran = true
		t.done.Store(true)
		// The lease is renewed until the settle has run: a give-back whose
		// tries outlast the lease would otherwise lapse to EXECUTED with
		// nothing run.
		t.run(proof, budget)
		if t.stop != nil {
			close(t.stop)
		}
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

func (t *Ticket) run(proof domain.NothingRan, budget time.Duration) {
	// Under spend_approval_on: sent every answer spends; only a statement
	// that never reached the upstream gives the approval back.
	accepted := !proof.Proves() || (t.sent && !proof.Unsent())
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	// A give-back is repeated only for a claim whose answer echoed its key:
	// a Control Plane that ignores keys would apply a late repeat to the
	// next attempt's claim, and the approval would run the statement again.
	tries := 3
	if !accepted && !ports.EchoedClaimKey(t.gate.CP, t.key) {
		tries = 1
	}
	var err error
	for i := 0; i < tries; i++ {
		if _, err = t.gate.CP.Settle(ctx, t.id, t.key, accepted); err == nil || !errors.Is(err, ports.ErrUnavailable) {
			break
		}
		if i == tries-1 {
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
	if !accepted && err == nil {
		t.gate.Log.Info("approval given back: nothing of the statement ran", "approval_id", t.id, "proof", proof.String())
	}
	t.gate.record(e)
}

// Tickets is one connection's claimed approvals, for a listener whose
// answers arrive apart from the code that forwarded them (a pipeline, a
// relay goroutine). SpendAll, called when the connection ends, spends every
// ticket not settled by then: a statement forwarded on a connection that
// ended before its answer was read may have run (domain.NothingRan), and no
// approval stays PROCESSING after its connection. The zero value is ready;
// it is safe for concurrent use.
type Tickets struct {
	mu   sync.Mutex
	open []*Ticket
}

// Add records t (nil is ignored), dropping the tickets settled since.
func (ts *Tickets) Add(t *Ticket) {
	if t == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.open = slices.DeleteFunc(ts.open, (*Ticket).settled)
	ts.open = append(ts.open, t)
}

// SpendAll spends every ticket added and not yet settled, and returns how
// many that was.
func (ts *Tickets) SpendAll() int {
	ts.mu.Lock()
	open := ts.open
	ts.open = nil
	ts.mu.Unlock()
	n := 0
	for _, t := range open {
		if !t.settled() {
			n++
			t.Spend()
		}
	}
	return n
}

// settled reports whether t's settle has run (or is running).
func (t *Ticket) settled() bool {
	return t.done.Load()
}

// String is for logs.
func (t *Ticket) String() string { return fmt.Sprintf("ticket(%s)", t.ApprovalID()) }
