package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// FINDING (LOW: SQLite and PostgreSQL disagree). Claim's
// "given_back_keys NOT LIKE ?" is case-insensitive for ASCII on SQLite
// (LIKE's default there) and case-sensitive on PostgreSQL: a key given back
// refuses, on SQLite only, every other key that differs from it only in
// letter case. Keys are any printable ASCII (the API); this Sidecar's are
// upper-case base32, so it fails closed (a fresh attempt cannot claim an
// approval that is APPROVED), but the two stores answer differently.
func TestBreakGivenBackKeyMatchIsCaseSensitiveOnBothStores(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string, s store.Store) {
		ctx := context.Background()
		a, _, _ := s.File(ctx, "demo", in("v1:case"), t0)
		mustDecide(t, s, a.ID, domain.StatusApproved)
		if _, won, err := s.Claim(ctx, "demo", a.ID, "v1:case", "abc", domain.StatusProcessing, t0); !won || err != nil {
			t.Fatalf("claim abc: won=%v %v", won, err)
		}
		if _, err := s.Settle(ctx, "demo", a.ID, "abc", false, t0); err != nil {
			t.Fatal(err)
		}
		if r, won, err := s.Claim(ctx, "demo", a.ID, "v1:case", "ABC", domain.StatusProcessing, t0); !won || err != nil {
			t.Fatalf("%s: a new key ABC after abc was given back: %s won=%v %v; want won (another key)", kind, r.Status, won, err)
		}
	})
}

// FINDING (LOW-MEDIUM: stuck PROCESSING). given_back_keys restarts with
// only the latest key once it passes maxGivenBackKeys (4096 bytes, about 150
// of this Sidecar's 26-character keys). An approval given back that many times
// (an agent whose statement the upstream keeps refusing before it runs, e.g.
// a lock timeout, resending in a loop) forgets its early keys: a late first
// try of an early claim (held by a proxy, or a replica's straggler) then wins
// again and leaves the approval PROCESSING with nobody to settle it - the
// stuck state the list exists to prevent. There is no time-based bound: the
// note "a late try of a claim older than that is not expected" counts
// give-backs, not time.
func TestBreakEarlyGivenBackKeyWinsAgainAfterTheListRestarts(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string, s store.Store) {
		ctx := context.Background()
		a, _, _ := s.File(ctx, "demo", in("v1:many"), t0)
		mustDecide(t, s, a.ID, domain.StatusApproved)
		key := func(i int) string { return fmt.Sprintf("K%025d", i) } // 26 characters, as ports.NewClaimKey
		for i := 0; i < 160; i++ {
			if _, won, err := s.Claim(ctx, "demo", a.ID, "v1:many", key(i), domain.StatusProcessing, t0); !won || err != nil {
				t.Fatalf("claim %d: won=%v %v", i, won, err)
			}
			if _, err := s.Settle(ctx, "demo", a.ID, key(i), false, t0); err != nil {
				t.Fatal(err)
			}
		}
		// Fixed in part: the list is a sliding window (the latest keys, not
		// a restart with one), and a late try of a key past it that wins
		// holds only the lease: nobody renews it, so it lapses to EXECUTED
		// (spent, never run twice) instead of staying PROCESSING.
		if _, won, err := s.Claim(ctx, "demo", a.ID, "v1:many", key(150), domain.StatusProcessing, t0); won || err != nil {
			t.Fatalf("%s: a late try of a key in the window won again: won=%v %v; want lost", kind, won, err)
		}
		r, won, err := s.Claim(ctx, "demo", a.ID, "v1:many", key(0), domain.StatusProcessing, t0)
		if err != nil {
			t.Fatal(err)
		}
		if won {
			if r, _ = s.Read(ctx, "demo", a.ID, t0.Add(s.Lease())); r.Status != domain.StatusExecuted {
				t.Fatalf("%s: the late first try of the first given-back key won and left %s after its lease; want EXECUTED", kind, r.Status)
			}
		}
	})
}
