package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
	"github.com/hoophq/sidecar/domain"
)

// A change queues its notification with it, a refused change queues none,
// and a claim is one owner's until its lease lapses.
func TestOutboxQueuesWithTheChangeAndLeasesClaims(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, now := context.Background(), time.Unix(1_800_000_000, 0)
			st := storetest.Open(t, kind, store.WithOutbox([]string{"ops", "team"}))
			ob, _ := store.OutboxOf(st)
			rec, _, err := st.File(ctx, "demo", store.FileInput{Fingerprint: "v1:a", ListenerName: "l", ApprovalRule: "r"}, now)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := st.Decide(ctx, rec.ID, domain.StatusRejected, "no", "alice", now); err != nil {
				t.Fatal(err)
			}
			// REJECTED → APPROVED is refused: nothing to announce.
			if _, _, err := st.Decide(ctx, rec.ID, domain.StatusApproved, "", "bob", now); err == nil {
				t.Fatal("approving a rejected request was allowed")
			}
			got, err := ob.ClaimDue(ctx, "a", 10, time.Minute, now)
			if err != nil || len(got) != 4 {
				t.Fatalf("claim: %d rows, %v; want requested and rejected for 2 webhooks", len(got), err)
			}
			events := map[string]int{}
			for _, n := range got {
				events[n.Event]++
				if n.Record.ID != rec.ID || n.Tries != 1 || n.ID != store.NotificationID(rec.ID, n.Event, n.Webhook) {
					t.Errorf("row %+v", n)
				}
			}
			if events[store.EventRequested] != 2 || events[store.EventRejected] != 2 {
				t.Errorf("events %v", events)
			}
			if more, _ := ob.ClaimDue(ctx, "b", 10, time.Minute, now.Add(30*time.Second)); len(more) != 0 {
				t.Errorf("another owner claimed %d rows under a's lease", len(more))
			}
			if ok, err := ob.Finish(ctx, "a", got[0].ID, store.OutboxDelivered, "", now); !ok || err != nil {
				t.Errorf("finish by the owner: %v %v", ok, err)
			}
			again, _ := ob.ClaimDue(ctx, "b", 10, time.Minute, now.Add(time.Minute))
			if len(again) != 3 || again[0].Tries != 2 {
				t.Fatalf("after a's lease lapsed b claims the 3 left: %d", len(again))
			}
			if ok, _ := ob.Retry(ctx, "a", again[0].ID, now, "late"); ok {
				t.Error("a recorded an outcome on a row b holds")
			}
			if n, _ := ob.Announce(ctx, rec, store.EventRejected, []string{"ops"}, now); n != 0 {
				t.Error("the same event was queued twice for one webhook")
			}
			if n, err := ob.Prune(ctx, now.Add(time.Second)); n != 1 || err != nil {
				t.Errorf("prune: %d %v; want the one delivered row", n, err)
			}
		})
	}
}
