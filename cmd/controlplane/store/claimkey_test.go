package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// A claim repeated with the key that won (its first answer was lost) wins
// again with the current state; another key loses, on SQLite and
// PostgreSQL. Settles are keyed the same way: the winning key's settle may
// be repeated, another key's is refused.
func TestClaimKeyMakesClaimAndSettleRepeatable(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		for _, to := range []domain.Status{domain.StatusExecuted, domain.StatusProcessing} {
			a, _, _ := s.File(ctx, "demo", in("v1:key-"+string(to)), t0)
			mustDecide(t, s, a.ID, domain.StatusApproved)
			fp := "v1:key-" + string(to)
			if r, won, err := s.Claim(ctx, "demo", a.ID, fp, "k1", to, t0); !won || err != nil || r.Status != to {
				t.Fatalf("%s: first claim: %+v won=%v %v", to, r, won, err)
			}
			if r, won, err := s.Claim(ctx, "demo", a.ID, fp, "k1", to, t0); !won || err != nil || r.Status != to || r.ID != a.ID {
				t.Fatalf("%s: the same key claiming again: %+v won=%v %v; want won with the current state", to, r, won, err)
			}
			if _, won, err := s.Claim(ctx, "demo", a.ID, fp, "k2", to, t0); won || err != nil {
				t.Fatalf("%s: another key won a claimed approval (won=%v, %v)", to, won, err)
			}
			if _, won, _ := s.Claim(ctx, "demo", a.ID, fp, "", to, t0); won {
				t.Fatalf("%s: a claim without a key won a claimed approval", to)
			}
			if _, won, _ := s.Claim(ctx, "demo", a.ID, "v1:other", "k1", to, t0); won {
				t.Fatalf("%s: the winning key with another fingerprint won", to)
			}
			if to != domain.StatusProcessing {
				continue
			}
			var ce *store.ConflictError
			if _, err := s.Settle(ctx, "demo", a.ID, "k2", true, t0); !errors.As(err, &ce) || ce.Current.Status != domain.StatusProcessing {
				t.Fatalf("settle with another claim's key: %v; want a conflict, still PROCESSING", err)
			}
			for i := range 2 {
				if r, err := s.Settle(ctx, "demo", a.ID, "k1", true, t0); err != nil || r.Status != domain.StatusExecuted {
					t.Fatalf("settle %d with the claim's key: %+v %v; want EXECUTED both times", i+1, r, err)
				}
			}
			if _, err := s.Settle(ctx, "demo", a.ID, "k1", false, t0); !errors.As(err, &ce) {
				t.Fatalf("a give-back after the spend with the same key: %v; want a conflict", err)
			}
			if _, won, _ := s.Claim(ctx, "demo", a.ID, fp, "k1", to, t0); won {
				t.Fatal("the winning key claimed again after its approval was spent")
			}
		}
	})
}

// A give-back repeated with its key answers APPROVED again; once another
// attempt has claimed the approval, the first attempt's key neither settles
// nor claims it.
func TestGiveBackRepeatedWithItsKeyDoesNotTouchTheNextClaim(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		a, _, _ := s.File(ctx, "demo", in("v1:gb"), t0)
		mustDecide(t, s, a.ID, domain.StatusApproved)
		if _, won, _ := s.Claim(ctx, "demo", a.ID, "v1:gb", "k1", domain.StatusProcessing, t0); !won {
			t.Fatal("claim k1 lost")
		}
		for i := range 2 {
			if r, err := s.Settle(ctx, "demo", a.ID, "k1", false, t0); err != nil || r.Status != domain.StatusApproved {
				t.Fatalf("give-back %d: %+v %v; want APPROVED", i+1, r, err)
			}
		}
		if _, won, _ := s.Claim(ctx, "demo", a.ID, "v1:gb", "k2", domain.StatusProcessing, t0); !won {
			t.Fatal("claim k2 of the given-back approval lost")
		}
		if _, err := s.Settle(ctx, "demo", a.ID, "k1", false, t0); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("k1's give-back repeated after k2 claimed: %v; want a conflict", err)
		}
		if r, _, _ := s.Claim(ctx, "demo", a.ID, "v1:gb", "k1", domain.StatusProcessing, t0); r.Status != domain.StatusProcessing {
			t.Fatalf("status after k1's late calls: %s; want PROCESSING (k2's)", r.Status)
		}
	})
}
