package app

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// clientLikeKeeper is the HTTP client's KeepsClaimKeys (calls.go): false
// until a won keyed claim's answer echoes claim_key, although the Control
// Plane behind it (the reference one, here the fake) keeps keys all along.
// The fake itself answers KeepsClaimKeys true from the start, which hides
// this in the existing tests.
type clientLikeKeeper struct {
	*fakecp.CP
	mu   sync.Mutex
	kept bool
}

func (c *clientLikeKeeper) Claim(ctx context.Context, id, fp string, spend ports.SpendOn, key ports.ClaimKey) (domain.Approval, bool, error) {
	a, won, err := c.CP.Claim(ctx, id, fp, spend, key)
	if err == nil && won && key != "" {
		c.mu.Lock()
		c.kept = true
		c.mu.Unlock()
	}
	return a, won, err
}

func (c *clientLikeKeeper) KeepsClaimKeys() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.kept }

// FINDING (MEDIUM, stuck PROCESSING). TestLostClaimIsNotRepeatedAfterTheTimeLimit
// holds only with the fake's constant KeepsClaimKeys. With the real client a
// Sidecar process that has not yet seen a won keyed claim (just started, or
// its first claim on this Control Plane) does not know the Control Plane
// keeps keys: the first claim of the process is applied (PROCESSING) and its
// answer lost; the resend comes after the time limit, reclaim does not repeat
// it and calls release, which skips the give-back (KeepsClaimKeys false). The
// approval stays PROCESSING forever with nothing run, although the Control
// Plane would have taken the keyed give-back.
func TestBreakFirstLostClaimOfAProcessIsNeverGivenBack(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC)}
	fake := fakecp.New(clock.Now)
	// Fixed: the client reads claim_keys from the Control Plane's info at
	// startup (cmd/sidecar's wiring calls Info before serving), so it knows
	// before its first claim; this keeper starts where that leaves it.
	cp := &clientLikeKeeper{CP: fake, kept: true}
	core := NewCore(CoreOptions{Sidecar: "s", CP: cp, Clock: clock})
	l := breakListener(t, core, ports.SpendOnAccepted, time.Hour)

	id := mustHeld(t, l.Check(context.Background(), breakDelete))
	if err := fake.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	fake.LoseClaimAnswers.Store(1)
	if out := l.Check(context.Background(), breakDelete); out.Forward {
		t.Fatal("claim answer lost, yet forwarded")
	}
	if st := statusOf(t, fake, id); st != domain.StatusProcessing {
		t.Fatalf("setup: approval %s, want PROCESSING (the lost claim was applied)", st)
	}
	clock.add(2 * time.Hour)
	if out := l.Check(context.Background(), breakDelete); out.Forward {
		t.Fatal("forwarded after the time limit")
	}
	if st := statusOf(t, fake, id); st == domain.StatusProcessing {
		t.Fatalf("approval %s left PROCESSING forever: release skipped the keyed give-back because the client "+
			"has not yet seen a won claim echo claim_key (KeepsClaimKeys false); want EXPIRED", id)
	}
}
