package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

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

// A claim key whose claim was given back never wins again: the late first
// try of a retried claim, arriving after its attempt gave the approval back
// (one round or several later), loses and leaves the approval APPROVED for
// the next attempt, instead of taking it to PROCESSING with nobody left to
// settle it.
func TestGivenBackKeyNeverWinsAgain(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		a, _, _ := s.File(ctx, "demo", in("v1:late"), t0)
		mustDecide(t, s, a.ID, domain.StatusApproved)
		keys := []string{"k1", "k_%!2", "k3"} // LIKE's special characters are keys like any other
		for _, k := range keys {
			if _, won, err := s.Claim(ctx, "demo", a.ID, "v1:late", k, domain.StatusProcessing, t0); !won || err != nil {
				t.Fatalf("claim %s: won=%v %v", k, won, err)
			}
			if r, err := s.Settle(ctx, "demo", a.ID, k, false, t0); err != nil || r.Status != domain.StatusApproved {
				t.Fatalf("give-back %s: %+v %v", k, r, err)
			}
			for _, late := range keys {
				if r, won, err := s.Claim(ctx, "demo", a.ID, "v1:late", late, domain.StatusProcessing, t0); won || err != nil || r.Status != domain.StatusApproved {
					t.Fatalf("a late try of %s after %s was given back: %+v won=%v %v; want lost, still APPROVED", late, k, r, won, err)
				}
				if late == k {
					break
				}
			}
		}
		if _, won, err := s.Claim(ctx, "demo", a.ID, "v1:late", "k_%!", domain.StatusProcessing, t0); !won || err != nil {
			t.Fatalf("a new key that a given-back key's pattern would match lost: won=%v %v", won, err)
		}
	})
}

// A claim repeated with its key wins again only within the approval's time
// limit: past it the statement whose claim answer was lost does not run.
func TestRepeatedClaimLosesAfterTheTimeLimit(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		fi := in("v1:limit")
		fi.TimeLimit = time.Hour
		a, _, _ := s.File(ctx, "demo", fi, t0)
		mustDecide(t, s, a.ID, domain.StatusApproved)
		if _, won, err := s.Claim(ctx, "demo", a.ID, "v1:limit", "k1", domain.StatusExecuted, t0); !won || err != nil {
			t.Fatalf("claim: won=%v %v", won, err)
		}
		if _, won, _ := s.Claim(ctx, "demo", a.ID, "v1:limit", "k1", domain.StatusExecuted, t0.Add(59*time.Minute)); !won {
			t.Fatal("the repeat within the time limit lost")
		}
		if r, won, err := s.Claim(ctx, "demo", a.ID, "v1:limit", "k1", domain.StatusExecuted, t0.Add(time.Hour)); won || err != nil {
			t.Fatalf("the repeat at the time limit: %+v won=%v %v; want lost", r, won, err)
		}
	})
}
