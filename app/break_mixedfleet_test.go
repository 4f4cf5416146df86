package app

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// mixedFleet is a Control Plane during a rolling upgrade: replicas of the
// new version (keys kept, claim_key echoed) and of an older one (keys
// ignored: a claim or settle behaves as a keyless one, no echo) behind one
// URL, sharing one database. The test picks which replica answers the next
// call (old). KeepsClaimKeys is the HTTP client's (calls.go): one flag for
// the whole client, set by the LAST won keyed claim's answer, whichever
// approval it was for.
type mixedFleet struct {
	*fakecp.CP
	mu   sync.Mutex
	old  bool
	kept bool
	// onSettle, when set, runs once, after the next settle is applied,
	// whose answer is then lost.
	onSettle func()
	settles  int
	echoed   map[ports.ClaimKey]bool // keys whose won claim a new replica answered
}

func (m *mixedFleet) route(old bool) { m.mu.Lock(); m.old = old; m.mu.Unlock() }
func (m *mixedFleet) isOld() bool    { m.mu.Lock(); defer m.mu.Unlock(); return m.old }

func (m *mixedFleet) KeepsClaimKeys() bool { m.mu.Lock(); defer m.mu.Unlock(); return m.kept }

// EchoedClaimKey is the real client's per-claim record: only a claim won at
// a new replica echoed its key.
func (m *mixedFleet) EchoedClaimKey(key ports.ClaimKey) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.echoed[key]
}

func (m *mixedFleet) Claim(ctx context.Context, id, fp string, spend ports.SpendOn, key ports.ClaimKey) (domain.Approval, bool, error) {
	old := m.isOld()
	k := key
	if old {
		k = "" // the old replica ignores claim_key
	}
	a, won, err := m.CP.Claim(ctx, id, fp, spend, k)
	if err == nil && won && key != "" {
		m.mu.Lock()
		m.kept = !old // echo only from a new replica
		if !old {
			if m.echoed == nil {
				m.echoed = map[ports.ClaimKey]bool{}
			}
			m.echoed[key] = true
		}
		m.mu.Unlock()
	}
	return a, won, err
}

func (m *mixedFleet) Settle(ctx context.Context, id string, key ports.ClaimKey, accepted bool) (domain.Approval, error) {
	k := key
	if m.isOld() {
		k = ""
	}
	a, err := m.CP.Settle(ctx, id, k, accepted)
	m.mu.Lock()
	m.settles++
	hook := m.onSettle
	m.onSettle = nil
	m.mu.Unlock()
	if hook != nil {
		hook()
		return domain.Approval{}, fmt.Errorf("settle answer lost: %w", ports.ErrUnavailable)
	}
	return a, err
}

// FINDING (HIGH during a mixed-version Control Plane rollout: one approval
// runs its statement twice). docs/control-plane-api.md, Claim: the Sidecar
// repeats a give-back "only when the claim's answer echoed its key". The
// client keeps one flag for all claims (keysKept, set by the last won keyed
// claim), and Ticket.run / Client.Settle read it at settle time. So: the
// statement's claim K1 is won at an old replica (no echo); another
// statement's claim is won at a new replica (echo: the flag reads true);
// the statement is refused upstream with proof nothing ran, and K1's
// give-back is applied, its answer lost; the agent's resend claims the
// approval again (K2) and runs; K1's give-back is repeated (the flag says
// keys are kept), lands at an old replica which ignores the key, and gives
// back K2's claim while K2's statement runs; the next resend claims again
// and runs the statement a second time on one approval.
func TestBreakGiveBackRepeatedForAClaimThatNeverEchoedItsKey(t *testing.T) {
	fake := fakecp.New(nil)
	fp, other := "v1:mixed", "v1:other"
	id := approvedFor(t, fake, fp, 0)
	otherID := approvedFor(t, fake, other, 0)
	cp := &mixedFleet{CP: fake}
	core := NewCore(CoreOptions{Sidecar: "s", CP: cp})
	s := &ListenerSettings{Name: "l", SpendOn: ports.SpendOnAccepted}
	ctx := context.Background()
	runs := 0

	cp.route(true) // the statement's claim: an old replica (no echo)
	a, won, err := core.Gate.claim(ctx, s, lostClaim{id: id, key: "k1", until: time.Time{}, spend: s.SpendOn}, fp)
	if err != nil || !won {
		t.Fatalf("claim k1: won=%v %v", won, err)
	}
	t1 := core.Gate.forwardClaimed(ports.AuditEvent{}, s, a, "k1", s.SpendOn).Ticket

	cp.route(false) // another statement's claim: a new replica (echo)
	b, won, err := core.Gate.claim(ctx, s, lostClaim{id: otherID, key: "kx", until: time.Time{}, spend: s.SpendOn}, other)
	if err != nil || !won {
		t.Fatalf("claim kx: won=%v %v", won, err)
	}
	core.Gate.forwardClaimed(ports.AuditEvent{}, s, b, "kx", s.SpendOn).Ticket.Spend()

	var t2 *Ticket
	onSettle := func() { // k1's give-back applied; before its answer: the resend
		cp.route(false)
		a2, won, err := core.Gate.claim(ctx, s, lostClaim{id: id, key: "k2", until: time.Time{}, spend: s.SpendOn}, fp)
		if err != nil || !won {
			t.Errorf("the resend's claim k2: won=%v %v", won, err)
			return
		}
		runs++ // k2's statement is forwarded and runs
		t2 = core.Gate.forwardClaimed(ports.AuditEvent{}, s, a2, "k2", s.SpendOn).Ticket
		cp.route(true) // k1's repeated give-back reaches an old replica
	}
	cp.route(true) // k1's give-back: an old replica (k1's claim is not keyed there)
	cp.mu.Lock()
	cp.onSettle = onSettle
	cp.mu.Unlock()
	t1.GiveBack(domain.NotSent("the upstream refused before running anything"))
	t.Logf("after k1's give-back: %s (k2's claim was PROCESSING, its statement running)", statusOf(t, fake, id))

	cp.route(false)
	if a3, won, err := core.Gate.claim(ctx, s, lostClaim{id: id, key: "k3", until: time.Time{}, spend: s.SpendOn}, fp); err == nil && won {
		runs++
		core.Gate.forwardClaimed(ports.AuditEvent{}, s, a3, "k3", s.SpendOn).Ticket.Spend()
	}
	t2.Spend()
	if runs > 1 {
		t.Fatalf("approval %s ran its statement %d times: k1's give-back was repeated although k1's claim answer never "+
			"echoed its key (the client-wide flag was set by another claim), and the repeat gave back k2's claim", id, runs)
	}
}
