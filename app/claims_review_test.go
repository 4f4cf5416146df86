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

// These tests reach inside the gate (claim, reclaim, Ticket) to set up the
// orders of events a lost answer allows, which a listener cannot time.

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// approvedFor files and approves a request for fp (time limit limit, none
// when 0) at cp and returns its id.
func approvedFor(t *testing.T, cp *fakecp.CP, fp string, limit time.Duration) string {
	t.Helper()
	f, err := cp.File(context.Background(), ports.FileRequest{Fingerprint: fp, ListenerName: "l", ApprovalRule: "r", TimeLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Decide(f.Approval.ID, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	return f.Approval.ID
}

func statusOf(t *testing.T, cp *fakecp.CP, id string) domain.Status {
	t.Helper()
	a, err := cp.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a.Status
}

// giveBackRacer is a Control Plane older than claim keys whose first
// settle is applied and its answer lost; before that answer "arrives" the
// agent's resend claims the approval (resend).
type giveBackRacer struct {
	*fakecp.CP
	once   sync.Once
	resend func()
}

func (r *giveBackRacer) Settle(ctx context.Context, id string, key ports.ClaimKey, accepted bool) (domain.Approval, error) {
	a, err := r.CP.Settle(ctx, id, key, accepted)
	lost := false
	r.once.Do(func() { lost = true; r.resend() })
	if lost {
		return domain.Approval{}, fmt.Errorf("settle answer lost: %w", ports.ErrUnavailable)
	}
	return a, err
}

// At a Control Plane that ignores claim keys a give-back whose answer was
// lost is not repeated: a repeat would land on the resend's claim, give it
// back, and the approval would run the statement a second time.
func TestGiveBackIsNotRepeatedAtAControlPlaneWithoutClaimKeys(t *testing.T) {
	fake := fakecp.New(nil)
	fake.Keyless = true
	fp := "v1:keyless"
	id := approvedFor(t, fake, fp, 0)
	var resendTicket *Ticket
	cp := &giveBackRacer{CP: fake}
	core := NewCore(CoreOptions{Sidecar: "s", CP: cp})
	s := &ListenerSettings{Name: "l", SpendOn: ports.SpendOnAccepted}
	first, won, err := core.Gate.claim(context.Background(), s, lostClaim{id: id, key: ports.NewClaimKey(), until: time.Time{}, spend: s.SpendOn}, fp)
	if err != nil || !won {
		t.Fatalf("first claim: won=%v %v", won, err)
	}
	ticket := core.Gate.forwardClaimed(ports.AuditEvent{}, s, first, "k-first", s.SpendOn).Ticket
	cp.resend = func() {
		a, won, err := core.Gate.claim(context.Background(), s, lostClaim{id: id, key: "k-resend", until: time.Time{}, spend: s.SpendOn}, fp)
		if err != nil || !won {
			t.Errorf("the resend's claim: won=%v %v", won, err)
			return
		}
		resendTicket = core.Gate.forwardClaimed(ports.AuditEvent{}, s, a, "k-resend", s.SpendOn).Ticket
	}
	if ports.KeepsClaimKeys(cp) {
		t.Fatal("a keyless Control Plane reads as keeping keys")
	}
	ticket.GiveBack(domain.NotSent("the upstream refused before running anything"))
	if st := statusOf(t, fake, id); st != domain.StatusProcessing {
		t.Fatalf("after the first attempt's give-back and the resend's claim: %s, want PROCESSING (the resend's)", st)
	}
	resendTicket.Spend()
	if st := statusOf(t, fake, id); st != domain.StatusExecuted {
		t.Fatalf("after the resend ran: %s, want EXECUTED; the approval would run the statement again", st)
	}
}

// Two sends of one statement whose claim answers were both lost: the first
// claim won at the Control Plane, the second lost there. The resend repeats
// every remembered key, so the one that won is forwarded, instead of only
// the last-remembered (losing) key being asked and the approval left
// PROCESSING with nothing run.
func TestEveryLostClaimIsRepeated(t *testing.T) {
	for _, spend := range []ports.SpendOn{ports.SpendOnSent, ports.SpendOnAccepted} {
		fake := fakecp.New(nil)
		fp := "v1:two-lost"
		id := approvedFor(t, fake, fp, 0)
		core := NewCore(CoreOptions{Sidecar: "s", CP: fake})
		s := &ListenerSettings{Name: "l", SpendOn: spend}
		fake.LoseClaimAnswers.Store(2)
		for _, k := range []ports.ClaimKey{"k-won", "k-lost"} {
			if _, _, err := core.Gate.claim(context.Background(), s, lostClaim{id: id, key: k, until: time.Time{}, spend: s.SpendOn}, fp); err == nil {
				t.Fatalf("claim %s: answer not lost", k)
			}
		}
		out, done := core.Gate.reclaim(context.Background(), ports.AuditEvent{}, s, "r", fp)
		if !done || !out.Forward {
			t.Fatalf("%s: the resend after two lost claims: done=%v %+v; want forwarded by the key that won", spend, done, out)
		}
		if out.Ticket.ApprovalID() != "" && out.Ticket.key != "k-won" {
			t.Fatalf("%s: forwarded under key %s, want k-won", spend, out.Ticket.key)
		}
		out.Ticket.Spend()
		if st := statusOf(t, fake, id); st != domain.StatusExecuted {
			t.Fatalf("%s: %s, want EXECUTED", spend, st)
		}
		if _, done := core.Gate.reclaim(context.Background(), ports.AuditEvent{}, s, "r", fp); done {
			t.Fatalf("%s: a second resend was decided by a remembered claim; want the ordinary path", spend)
		}
	}
}

// A claim whose answer was lost is not repeated after its approval's time
// limit: the statement does not run late. The claim the Control Plane
// applied is given back (its statement was never forwarded), so the
// approval reads EXPIRED under both spend modes, instead of PROCESSING
// forever (accepted) or EXECUTED with nothing run (sent).
func TestLostClaimIsNotRepeatedAfterTheTimeLimit(t *testing.T) {
	for _, spend := range []ports.SpendOn{ports.SpendOnSent, ports.SpendOnAccepted} {
		clock := &testClock{now: time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC)}
		fake := fakecp.New(clock.Now)
		fp := "v1:late-resend"
		id := approvedFor(t, fake, fp, time.Hour)
		a, _ := fake.Get(context.Background(), id)
		core := NewCore(CoreOptions{Sidecar: "s", CP: fake, Clock: clock})
		s := &ListenerSettings{Name: "l", SpendOn: spend}
		fake.LoseClaimAnswers.Store(1)
		if _, _, err := core.Gate.claim(context.Background(), s, lostClaim{id: id, key: "k1", until: *a.ExpiresAt, spend: s.SpendOn}, fp); err == nil {
			t.Fatal("claim answer not lost")
		}
		clock.add(2 * time.Hour)
		if out, done := core.Gate.reclaim(context.Background(), ports.AuditEvent{}, s, "r", fp); done || out.Forward {
			t.Fatalf("%s: a resend after the time limit: done=%v %+v; want the ordinary path, nothing forwarded", spend, done, out)
		}
		if st := statusOf(t, fake, id); st != domain.StatusExpired {
			t.Fatalf("%s: approval %s, want EXPIRED", spend, st)
		}
	}
}
