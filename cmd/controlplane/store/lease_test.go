package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// A claim to PROCESSING holds a lease; renewing it with the claim's key
// keeps it; once it lapses the request reads EXECUTED, settled by the lease
// (outcome unknown), in reads and in lists, and Lapse writes it so. After
// the lapse nothing makes it usable again: a give-back, a renew, a repeated
// claim with the winning key and a revoke all find it EXECUTED. On SQLite
// and PostgreSQL.
func TestProcessingLeaseLapsesToExecuted(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		lease := s.Lease()
		if lease != store.DefaultProcessingLease {
			t.Fatalf("lease %s, want the default %s", lease, store.DefaultProcessingLease)
		}
		a, _, _ := s.File(ctx, "demo", in("v1:lease"), t0)
		mustDecide(t, s, a.ID, domain.StatusApproved)
		at := t0.Add(2 * time.Minute)
		r, won, err := s.Claim(ctx, "demo", a.ID, "v1:lease", "k1", domain.StatusProcessing, at)
		if !won || err != nil || r.LeaseUntil == nil || !r.LeaseUntil.Equal(at.Add(lease)) {
			t.Fatalf("claim: %+v won=%v %v; want a lease until %s", r, won, err, at.Add(lease))
		}
		var ce *store.ConflictError
		if _, err := s.Renew(ctx, "demo", a.ID, "k2", at.Add(lease/2)); !errors.As(err, &ce) {
			t.Fatalf("renew with another key: %v; want a conflict", err)
		}
		renewed := at.Add(lease / 2)
		if r, err = s.Renew(ctx, "demo", a.ID, "k1", renewed); err != nil || !r.LeaseUntil.Equal(renewed.Add(lease)) {
			t.Fatalf("renew: %+v %v; want a lease until %s", r, err, renewed.Add(lease))
		}
		if r, _ = s.Read(ctx, "demo", a.ID, renewed.Add(lease-time.Second)); r.Status != domain.StatusProcessing {
			t.Fatalf("before the renewed lease lapses: %s, want PROCESSING", r.Status)
		}
		lapsed := renewed.Add(lease)
		if r, _ = s.Read(ctx, "demo", a.ID, lapsed); r.Status != domain.StatusExecuted || r.SettledBy != store.SettledByLease {
			t.Fatalf("at the lapse: %s settled by %q, want EXECUTED by the lease", r.Status, r.SettledBy)
		}
		for _, st := range []domain.Status{domain.StatusProcessing, domain.StatusExecuted} {
			l, err := s.List(ctx, store.Filter{Sidecar: "demo", Status: st, Limit: 10}, lapsed)
			if err != nil {
				t.Fatal(err)
			}
			if want := st == domain.StatusExecuted; (len(l) == 1) != want {
				t.Fatalf("list %s after the lapse: %d requests", st, len(l))
			}
		}
		if _, err := s.Settle(ctx, "demo", a.ID, "k1", false, lapsed); !errors.As(err, &ce) || ce.Current.Status != domain.StatusExecuted {
			t.Fatalf("a give-back after the lapse: %v; want a conflict, EXECUTED", err)
		}
		if _, err := s.Renew(ctx, "demo", a.ID, "k1", lapsed); !errors.As(err, &ce) {
			t.Fatalf("a renew after the lapse: %v; want a conflict", err)
		}
		if _, won, _ := s.Claim(ctx, "demo", a.ID, "v1:lease", "k1", domain.StatusProcessing, lapsed); won {
			t.Fatal("the winning key's repeated claim won after the lapse")
		}
		if _, _, err := s.Decide(ctx, a.ID, domain.StatusRevoked, "", "alice", lapsed); !errors.As(err, &ce) {
			t.Fatalf("a revoke after the lapse: %v; want a conflict", err)
		}
		if n, err := s.Lapse(ctx, lapsed); n != 1 || err != nil {
			t.Fatalf("Lapse: %d %v; want 1", n, err)
		}
		if r, _ = s.Read(ctx, "demo", a.ID, t0); r.Status != domain.StatusExecuted || r.SettledBy != store.SettledByLease {
			t.Fatalf("after Lapse, read before the lapse time: %s by %q; want it written EXECUTED by the lease", r.Status, r.SettledBy)
		}
		if r, err := s.Settle(ctx, "demo", a.ID, "k1", true, lapsed); err != nil || r.Status != domain.StatusExecuted {
			t.Fatalf("the Sidecar's late spend: %+v %v; want EXECUTED, no error", r, err)
		}
	})
}

// A settle within the lease clears it; a claim spent when sent has none;
// WithProcessingLease(0) gives none (PROCESSING until settled or revoked).
func TestLeaseOnlyWhileProcessing(t *testing.T) {
	eachKind(t, func(t *testing.T, kind string, s store.Store) {
		ctx := context.Background()
		a, _, _ := s.File(ctx, "demo", in("v1:sent"), t0)
		mustDecide(t, s, a.ID, domain.StatusApproved)
		if r, _, _ := s.Claim(ctx, "demo", a.ID, "v1:sent", "k1", domain.StatusExecuted, t0); r.LeaseUntil != nil {
			t.Fatalf("a claim spent when sent has a lease: %v", r.LeaseUntil)
		}
		b, _, _ := s.File(ctx, "demo", in("v1:settled"), t0)
		mustDecide(t, s, b.ID, domain.StatusApproved)
		s.Claim(ctx, "demo", b.ID, "v1:settled", "k1", domain.StatusProcessing, t0)
		if r, err := s.Settle(ctx, "demo", b.ID, "k1", false, t0.Add(time.Second)); err != nil || r.LeaseUntil != nil || r.Status != domain.StatusApproved {
			t.Fatalf("give-back: %+v %v; want APPROVED without a lease", r, err)
		}
		if r, _ := s.Read(ctx, "demo", b.ID, t0.Add(time.Hour)); r.Status != domain.StatusApproved {
			t.Fatalf("the given-back request an hour later: %s, want APPROVED", r.Status)
		}
	})
	s, err := store.Open(context.Background(), "sqlite:"+t.TempDir()+"/x.db", store.WithProcessingLease(0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	a, _, _ := s.File(ctx, "demo", in("v1:nolease"), t0)
	mustDecide(t, s, a.ID, domain.StatusApproved)
	if r, won, _ := s.Claim(ctx, "demo", a.ID, "v1:nolease", "k1", domain.StatusProcessing, t0); !won || r.LeaseUntil != nil {
		t.Fatalf("claim without leases: %+v won=%v", r, won)
	}
	if r, _ := s.Read(ctx, "demo", a.ID, t0.Add(24*time.Hour)); r.Status != domain.StatusProcessing {
		t.Fatalf("a day later: %s, want PROCESSING", r.Status)
	}
}
