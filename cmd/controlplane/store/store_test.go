package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
	"github.com/hoophq/sidecar/domain"
)

var t0 = time.Date(2026, 9, 29, 14, 2, 11, 0, time.UTC)

func in(fp string) store.FileInput {
	return store.FileInput{Fingerprint: fp, ListenerName: "billing-api", ApprovalRule: "billing-approvers",
		Statement: "DELETE /v1/invoices/42", Protocol: "http", ClientIdentity: "agent"}
}

// eachKind runs f against a fresh SQLite store and a fresh PostgreSQL database.
func eachKind(t *testing.T, f func(t *testing.T, kind string, s store.Store)) {
	eachKindWith(t, nil, f)
}

// eachKindWith is eachKind with the stores opened with opts.
func eachKindWith(t *testing.T, opts []store.Option, f func(t *testing.T, kind string, s store.Store)) {
	for _, kind := range storetest.Kinds {
		t.Run(kind, func(t *testing.T) { f(t, kind, storetest.Open(t, kind, opts...)) })
	}
}

// noLease opens a store whose PROCESSING requests have no lease (they stay
// PROCESSING until settled or revoked), for tests of what a person does
// with one.
var noLease = []store.Option{store.WithProcessingLease(0)}

// atOnce makes n calls at the same moment, the i-th through
// replicas[i%len(replicas)]: each waits for one common release, and atOnce
// returns when all are done. call runs concurrently; the tally it returns
// runs under one lock, so it may count outcomes in shared variables.
func atOnce(n int, replicas []store.Store, call func(s store.Store) (tally func())) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(s store.Store) {
			defer wg.Done()
			<-start
			tally := call(s)
			mu.Lock()
			defer mu.Unlock()
			tally()
		}(replicas[i%len(replicas)])
	}
	close(start)
	wg.Wait()
}

func TestFileReusesPerSidecarAndFingerprint(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		a, reused, err := s.File(ctx, "demo", in("v1:aa"), t0)
		if err != nil || reused {
			t.Fatalf("first file: %v reused=%v", err, reused)
		}
		if a.Status != domain.StatusPending || a.CreatedAt != t0 || a.ExpiresAt != nil || a.DecidedAt != nil || a.ID == "" {
			t.Fatalf("new request: %+v", a)
		}
		b, reused, err := s.File(ctx, "demo", in("v1:aa"), t0.Add(time.Second))
		if err != nil || !reused || b.ID != a.ID {
			t.Fatalf("same fingerprint: %v reused=%v id %s want %s", err, reused, b.ID, a.ID)
		}
		c, reused, err := s.File(ctx, "other", in("v1:aa"), t0)
		if err != nil || reused || c.ID == a.ID {
			t.Fatalf("other sidecar must get its own request: %v reused=%v", err, reused)
		}
		d, reused, _ := s.File(ctx, "demo", in("v1:bb"), t0)
		if reused || d.ID == a.ID {
			t.Fatal("other fingerprint must get its own request")
		}
	})
}

func TestReuseFollowsTheStatus(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		// REJECTED and REVOKED are reused (a person refused; no flood).
		for _, to := range []domain.Status{domain.StatusRejected, domain.StatusRevoked} {
			fp := "v1:" + string(to)
			a, _, _ := s.File(ctx, "demo", in(fp), t0)
			if to == domain.StatusRevoked {
				mustDecide(t, s, a.ID, domain.StatusApproved)
			}
			mustDecide(t, s, a.ID, to)
			b, reused, _ := s.File(ctx, "demo", in(fp), t0)
			if !reused || b.ID != a.ID || b.Status != to {
				t.Fatalf("%s must be reused: %+v reused=%v", to, b, reused)
			}
		}
		// EXECUTED is not: a new PENDING request is filed.
		a, _, _ := s.File(ctx, "demo", in("v1:ex"), t0)
		mustDecide(t, s, a.ID, domain.StatusApproved)
		if _, won, err := s.Claim(ctx, "demo", a.ID, "v1:ex", "", domain.StatusExecuted, t0); !won || err != nil {
			t.Fatalf("claim: %v %v", won, err)
		}
		b, reused, _ := s.File(ctx, "demo", in("v1:ex"), t0)
		if reused || b.ID == a.ID || b.Status != domain.StatusPending {
			t.Fatalf("after EXECUTED a new request is filed: %+v reused=%v", b, reused)
		}
	})
}

func mustDecide(t *testing.T, s store.Store, id string, to domain.Status) store.Record {
	t.Helper()
	r, _, err := s.Decide(context.Background(), id, to, "", "alice", t0.Add(time.Minute))
	if err != nil {
		t.Fatalf("decide %s: %v", to, err)
	}
	return r
}

func TestReadIsScopedAndCounted(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		a, _, _ := s.File(ctx, "demo", in("v1:aa"), t0)
		for i := 0; i < 3; i++ {
			if _, err := s.Read(ctx, "demo", a.ID, t0); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Read(ctx, "other", a.ID, t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another sidecar's read: %v, want ErrNotFound", err)
		}
		if _, err := s.Read(ctx, "demo", "no-such-id", t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown id: %v", err)
		}
		g, err := s.Get(ctx, a.ID, t0)
		if err != nil || g.SidecarReads != 3 || g.Statement != "DELETE /v1/invoices/42" || g.Sidecar != "demo" {
			t.Fatalf("approver get: %+v %v", g, err)
		}
	})
}

func TestDecideFollowsTheStateMachine(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		a, _, _ := s.File(ctx, "demo", in("v1:aa"), t0)
		dec := t0.Add(90 * time.Second)
		r, from, err := s.Decide(ctx, a.ID, domain.StatusApproved, "ignored", "alice", dec)
		if err != nil || from != domain.StatusPending || r.Status != domain.StatusApproved ||
			r.DecidedAt == nil || !r.DecidedAt.Equal(dec) || r.DecidedBy != "alice" || r.RejectionReason != "" {
			t.Fatalf("approve: %+v from=%s %v", r, from, err)
		}
		var ce *store.ConflictError
		if _, _, err := s.Decide(ctx, a.ID, domain.StatusApproved, "", "bob", dec); !errors.As(err, &ce) ||
			ce.Current.Status != domain.StatusApproved || !errors.Is(err, store.ErrConflict) {
			t.Fatalf("approve twice: %v", err)
		}
		if _, _, err := s.Decide(ctx, a.ID, domain.StatusRejected, "", "bob", dec); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("reject an approved one: %v", err)
		}
		r, from, err = s.Decide(ctx, a.ID, domain.StatusRevoked, "", "bob", dec.Add(time.Second))
		if err != nil || from != domain.StatusApproved || r.Status != domain.StatusRevoked || r.DecidedBy != "bob" {
			t.Fatalf("revoke: %+v %v", r, err)
		}
		b, _, _ := s.File(ctx, "demo", in("v1:bb"), t0)
		if _, _, err := s.Decide(ctx, b.ID, domain.StatusRevoked, "", "bob", dec); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("revoke a pending one: %v", err)
		}
		r, _, err = s.Decide(ctx, b.ID, domain.StatusRejected, "not during the freeze", "bob", dec)
		if err != nil || r.Status != domain.StatusRejected || r.RejectionReason != "not during the freeze" {
			t.Fatalf("reject: %+v %v", r, err)
		}
		if _, _, err := s.Decide(ctx, "no-such-id", domain.StatusApproved, "", "bob", dec); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown id: %v", err)
		}
	})
}

func TestClaimAndSettle(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		a, _, _ := s.File(ctx, "demo", in("v1:aa"), t0)
		if r, won, err := s.Claim(ctx, "demo", a.ID, "v1:aa", "", domain.StatusExecuted, t0); won || err != nil || r.Status != domain.StatusPending {
			t.Fatalf("claim of a PENDING one: %+v won=%v %v", r, won, err)
		}
		mustDecide(t, s, a.ID, domain.StatusApproved)
		if _, won, _ := s.Claim(ctx, "demo", a.ID, "v1:other", "", domain.StatusExecuted, t0); won {
			t.Fatal("claim with another fingerprint won")
		}
		if _, _, err := s.Claim(ctx, "other", a.ID, "v1:aa", "", domain.StatusExecuted, t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("claim by another sidecar: %v", err)
		}
		r, won, err := s.Claim(ctx, "demo", a.ID, "v1:aa", "", domain.StatusProcessing, t0)
		if !won || err != nil || r.Status != domain.StatusProcessing {
			t.Fatalf("claim (accepted): %+v %v %v", r, won, err)
		}
		r, err = s.Settle(ctx, "demo", a.ID, "", false, t0)
		if err != nil || r.Status != domain.StatusApproved {
			t.Fatalf("settle refused: %+v %v", r, err)
		}
		if _, won, _ := s.Claim(ctx, "demo", a.ID, "v1:aa", "", domain.StatusProcessing, t0); !won {
			t.Fatal("a given-back approval must be claimable again")
		}
		r, err = s.Settle(ctx, "demo", a.ID, "", true, t0)
		if err != nil || r.Status != domain.StatusExecuted {
			t.Fatalf("settle accepted: %+v %v", r, err)
		}
		var ce *store.ConflictError
		if _, err := s.Settle(ctx, "demo", a.ID, "", true, t0); !errors.As(err, &ce) || ce.Current.Status != domain.StatusExecuted {
			t.Fatalf("settle of an EXECUTED one: %v", err)
		}
		if _, err := s.Settle(ctx, "other", a.ID, "", true, t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("settle by another sidecar: %v", err)
		}
	})
}

func TestExpiryIsAppliedOnRead(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		limited := in("v1:aa")
		limited.TimeLimit = 30 * time.Second
		a, _, _ := s.File(ctx, "demo", limited, t0)
		exp := t0.Add(30 * time.Second)
		if a.ExpiresAt == nil || !a.ExpiresAt.Equal(exp) {
			t.Fatalf("expires_at: %v", a.ExpiresAt)
		}
		approvedLimited := in("v1:bb")
		approvedLimited.TimeLimit = 30 * time.Second
		b, _, _ := s.File(ctx, "demo", approvedLimited, t0)
		if _, _, err := s.Decide(ctx, b.ID, domain.StatusApproved, "", "alice", t0.Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
		before, at := exp.Add(-time.Nanosecond), exp
		if r, _ := s.Get(ctx, a.ID, before); r.Status != domain.StatusPending || r.DecidedAt != nil {
			t.Fatalf("just before the limit: %+v", r)
		}
		for _, id := range []string{a.ID, b.ID} {
			r, err := s.Read(ctx, "demo", id, at)
			if err != nil || r.Status != domain.StatusExpired {
				t.Fatalf("at the limit: %+v %v", r, err)
			}
			if id == a.ID && (r.DecidedAt == nil || !r.DecidedAt.Equal(exp)) {
				t.Fatalf("decided_at of an expired PENDING one must be expires_at: %v", r.DecidedAt)
			}
		}
		list := func(st domain.Status, now time.Time) int {
			rs, err := s.List(ctx, store.Filter{Status: st, Limit: 20}, now)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if r.Status != st {
					t.Fatalf("list %s returned a %s", st, r.Status)
				}
			}
			return len(rs)
		}
		if n := list(domain.StatusExpired, at); n != 2 {
			t.Fatalf("EXPIRED list: %d, want 2", n)
		}
		if n, m := list(domain.StatusPending, at), list(domain.StatusApproved, at); n+m != 0 {
			t.Fatalf("PENDING/APPROVED lists after the limit: %d %d", n, m)
		}
		if n, m := list(domain.StatusPending, before), list(domain.StatusApproved, before); n != 1 || m != 1 {
			t.Fatalf("PENDING/APPROVED lists before the limit: %d %d", n, m)
		}
		if _, won, _ := s.Claim(ctx, "demo", b.ID, "v1:bb", "", domain.StatusExecuted, at); won {
			t.Fatal("an expired approval was claimed")
		}
		if _, _, err := s.Decide(ctx, a.ID, domain.StatusApproved, "", "alice", at); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("approve an expired one: %v", err)
		}
		c, reused, _ := s.File(ctx, "demo", limited, at)
		if reused || c.ID == a.ID {
			t.Fatal("after EXPIRED a new request is filed")
		}
	})
}

func TestListNewestFirstScopedAndLimited(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		var ids []string
		for i := 0; i < 5; i++ {
			// two per second: order within a second is filing order
			r, _, err := s.File(ctx, "demo", in(fmt.Sprintf("v1:%d", i)), t0.Add(time.Duration(i/2)*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID)
		}
		s.File(ctx, "other", in("v1:x"), t0.Add(time.Hour))
		rs, err := s.List(ctx, store.Filter{Sidecar: "demo", Limit: 3}, t0)
		if err != nil || len(rs) != 3 {
			t.Fatalf("list: %d %v", len(rs), err)
		}
		for i, r := range rs {
			if r.ID != ids[4-i] {
				t.Fatalf("position %d: %s, want %s", i, r.ID, ids[4-i])
			}
		}
		all, _ := s.List(ctx, store.Filter{Limit: 200}, t0)
		if len(all) != 6 || all[0].Sidecar != "other" {
			t.Fatalf("list of every sidecar: %d, first %s", len(all), all[0].Sidecar)
		}
	})
}

// TestFiftyConcurrentClaimsOneWins claims one APPROVED approval 50 times at
// once through two store handles on the same database (two replicas).
func TestFiftyConcurrentClaimsOneWins(t *testing.T) {
	for _, kind := range storetest.Kinds {
		t.Run(kind, func(t *testing.T) {
			addr := storetest.Addr(t, kind)
			replicas := []store.Store{storetest.OpenAddr(t, addr), storetest.OpenAddr(t, addr)}
			ctx := context.Background()
			a, _, _ := replicas[0].File(ctx, "demo", in("v1:aa"), t0)
			mustDecide(t, replicas[1], a.ID, domain.StatusApproved)
			wins, losses := 0, 0
			atOnce(50, replicas, func(s store.Store) func() {
				r, won, err := s.Claim(ctx, "demo", a.ID, "v1:aa", "", domain.StatusExecuted, t0)
				return func() {
					switch {
					case err != nil:
						t.Errorf("claim: %v", err)
					case won:
						wins++
					case r.Status == domain.StatusExecuted:
						losses++
					default:
						t.Errorf("lost claim reports %s", r.Status)
					}
				}
			})
			if wins != 1 || losses != 49 {
				t.Fatalf("wins %d losses %d, want 1 and 49", wins, losses)
			}
		})
	}
}

// TestConcurrentFileFilesOnce files the same statement 20 times at once
// through two replicas: one request is filed, every other call reuses it.
func TestConcurrentFileFilesOnce(t *testing.T) {
	for _, kind := range storetest.Kinds {
		t.Run(kind, func(t *testing.T) {
			addr := storetest.Addr(t, kind)
			replicas := []store.Store{storetest.OpenAddr(t, addr), storetest.OpenAddr(t, addr)}
			ids, fresh := map[string]bool{}, 0
			atOnce(20, replicas, func(s store.Store) func() {
				r, reused, err := s.File(context.Background(), "demo", in("v1:same"), t0)
				return func() {
					if err != nil {
						t.Errorf("file: %v", err)
						return
					}
					ids[r.ID] = true
					if !reused {
						fresh++
					}
				}
			})
			if len(ids) != 1 || fresh != 1 {
				t.Fatalf("%d distinct ids, %d filed new; want 1 and 1", len(ids), fresh)
			}
		})
	}
}

// A request whose Sidecar claimed it (spend_approval_on: accepted) and never
// settled stays PROCESSING; a person clears it with revoke, also past its
// time limit, and the Sidecar's late settle then finds it REVOKED.
func TestRevokeClearsAnUnsettledProcessingRequest(t *testing.T) {
	eachKindWith(t, noLease, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		f := in("v1:stuck")
		f.TimeLimit = 10 * time.Minute
		a, _, _ := s.File(ctx, "demo", f, t0)
		mustDecide(t, s, a.ID, domain.StatusApproved)
		if _, won, err := s.Claim(ctx, "demo", a.ID, "v1:stuck", "", domain.StatusProcessing, t0); !won || err != nil {
			t.Fatalf("claim: %v %v", won, err)
		}
		later := t0.Add(time.Hour) // past expires_at
		r, prev, err := s.Decide(ctx, a.ID, domain.StatusRevoked, "", "alice", later)
		if err != nil || prev != domain.StatusProcessing || r.Status != domain.StatusRevoked {
			t.Fatalf("revoke of PROCESSING: %+v was %s, %v", r, prev, err)
		}
		var ce *store.ConflictError
		if _, err := s.Settle(ctx, "demo", a.ID, "", false, later); !errors.As(err, &ce) || ce.Current.Status != domain.StatusRevoked {
			t.Fatalf("late settle after revoke: %v", err)
		}
	})
}
