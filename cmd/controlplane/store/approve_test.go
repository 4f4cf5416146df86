package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
	"github.com/hoophq/sidecar/domain"
)

// atLeast is a policy's Met for a quorum of n distinct approvers.
func atLeast(n int) func([]store.Vote) bool {
	return func(vs []store.Vote) bool { return len(vs) >= n }
}

func vote(name string, at time.Time) store.Vote {
	return store.Vote{Approver: name, Groups: []string{"dba"}, At: at, Reason: "ok by " + name}
}

// Two of two: the first approval is kept and the request stays PENDING; the
// same approver again counts once; the second approver's moves it to
// APPROVED, decided by that approver; a later one finds it decided.
func TestApproveKeepsEachApprovalUntilTheQuorum(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		a, _, _ := s.File(ctx, "demo", in("v1:aa"), t0)
		r, from, counted, err := s.Approve(ctx, a.ID, vote("alice", t0), atLeast(2), t0)
		if err != nil || !counted || from != domain.StatusPending || r.Status != domain.StatusPending ||
			len(r.Approvals) != 1 || r.Approvals[0].Approver != "alice" || r.DecidedAt != nil || r.DecidedBy != "" {
			t.Fatalf("alice: %+v %s %v %v", r, from, counted, err)
		}
		r, _, counted, err = s.Approve(ctx, a.ID, vote("alice", t0.Add(time.Minute)), atLeast(2), t0.Add(time.Minute))
		if err != nil || counted || r.Status != domain.StatusPending || len(r.Approvals) != 1 || !r.Approvals[0].At.Equal(t0) {
			t.Fatalf("alice again: %+v %v %v", r, counted, err)
		}
		r, _, counted, err = s.Approve(ctx, a.ID, vote("bob", t0.Add(2*time.Minute)), atLeast(2), t0.Add(2*time.Minute))
		if err != nil || !counted || r.Status != domain.StatusApproved || r.DecidedBy != "bob" ||
			r.DecidedAt == nil || !r.DecidedAt.Equal(t0.Add(2*time.Minute)) || len(r.Approvals) != 2 {
			t.Fatalf("bob: %+v %v %v", r, counted, err)
		}
		got, err := s.Get(ctx, a.ID, t0.Add(3*time.Minute))
		want := []store.Vote{vote("alice", t0), vote("bob", t0.Add(2*time.Minute))}
		if err != nil || fmt.Sprint(got.Approvals) != fmt.Sprint(want) {
			t.Fatalf("read back: %+v %v; want %v", got.Approvals, err, want)
		}
		_, _, _, err = s.Approve(ctx, a.ID, vote("carol", t0), atLeast(2), t0.Add(3*time.Minute))
		var ce *store.ConflictError
		if !errors.As(err, &ce) || ce.Current.Status != domain.StatusApproved {
			t.Fatalf("carol after the quorum: %v", err)
		}
		if _, _, _, err := s.Approve(ctx, "no-such-id", vote("bob", t0), atLeast(1), t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown id: %v", err)
		}
	})
}

// An approval is refused past the time limit and on a rejected request.
func TestApproveNeedsAPendingUnexpiredRequest(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		fi := in("v1:aa")
		fi.TimeLimit = time.Minute
		a, _, _ := s.File(ctx, "demo", fi, t0)
		if _, _, _, err := s.Approve(ctx, a.ID, vote("alice", t0), atLeast(1), t0.Add(time.Minute)); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("expired: %v", err)
		}
		b, _, _ := s.File(ctx, "demo", in("v1:bb"), t0)
		mustDecide(t, s, b.ID, domain.StatusRejected)
		if _, _, _, err := s.Approve(ctx, b.ID, vote("alice", t0), atLeast(1), t0); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("rejected: %v", err)
		}
	})
}

// Twelve approvers approve one request at the same moment through two
// replicas. With a quorum of twelve every approval is kept and exactly one
// call moves it to APPROVED; with a quorum of two, exactly one call
// approves it, and the approvals kept are exactly the calls that counted.
func TestConcurrentApprovalsAreNeverLost(t *testing.T) {
	for _, quorum := range []int{12, 2} {
		for _, kind := range storetest.Kinds {
			t.Run(fmt.Sprintf("%s/quorum%d", kind, quorum), func(t *testing.T) {
				addr := storetest.Addr(t, kind)
				replicas := []store.Store{storetest.OpenAddr(t, addr), storetest.OpenAddr(t, addr)}
				ctx := context.Background()
				a, _, _ := replicas[0].File(ctx, "demo", in("v1:aa"), t0)
				approved, counted, conflicts := 0, 0, 0
				next := make(chan string, 12)
				for i := range 12 {
					next <- fmt.Sprintf("approver%02d", i)
				}
				atOnce(12, replicas, func(s store.Store) func() {
					r, _, c, err := s.Approve(ctx, a.ID, vote(<-next, t0), atLeast(quorum), t0)
					return func() {
						switch {
						case errors.Is(err, store.ErrConflict):
							conflicts++
						case err != nil:
							t.Errorf("approve: %v", err)
						case c && r.Status == domain.StatusApproved:
							approved++
							counted++
						case c:
							counted++
						}
					}
				})
				got, err := replicas[1].Get(ctx, a.ID, t0)
				if err != nil || got.Status != domain.StatusApproved || approved != 1 || len(got.Approvals) != counted ||
					counted+conflicts != 12 || (quorum == 12 && counted != 12) {
					t.Fatalf("status %s, %d approvals kept, %d counted, %d moved it to APPROVED, %d conflicts (%v)",
						got.Status, len(got.Approvals), counted, approved, conflicts, err)
				}
			})
		}
	}
}
