package notify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/notify"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
	"github.com/hoophq/sidecar/domain"
)

// The Standard Webhooks specification's test vector.
func TestSignMatchesTheStandardWebhooksVector(t *testing.T) {
	key, err := notify.ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := notify.Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Errorf("signature %s", got)
	}
	for _, bad := range []string{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64", "whsec_c2hvcnQ="} {
		if _, err := notify.ParseSecret(bad); err == nil {
			t.Errorf("ParseSecret(%q) accepted it", bad)
		}
	}
}

// A receiver verifies every POST with the webhook's secret: webhook-id,
// webhook-timestamp and webhook-signature over the exact body.
func TestDeliveriesAreSigned(t *testing.T) {
	rec := newRecorder(t)
	key, _ := notify.ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	var l logs
	r := start(t, &l, notify.Webhook{Name: "signed", URL: rec.URL, Secret: key}, notify.Webhook{Name: "plain", URL: rec.URL + "/plain"})
	r.announce(t, record())
	for range 2 {
		h := rec.next(t)
		id, ts, sig := h.Header.Get("webhook-id"), h.Header.Get("webhook-timestamp"), h.Header.Get("webhook-signature")
		if h.Path == "/plain" {
			if id == "" || ts == "" || sig != "" {
				t.Errorf("a webhook without a secret: id %q, timestamp %q, signature %q", id, ts, sig)
			}
			continue
		}
		if err := notify.Verify(key, id, ts, sig, h.Body, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("the receiver cannot verify it: %v (%s %s %s)", err, id, ts, sig)
		}
		if err := notify.Verify(key, id, ts, sig, append(h.Body, ' '), time.Now(), 5*time.Minute); err == nil {
			t.Error("an altered body verified")
		}
	}
}

// event is what a receiver learns from one JSON POST.
type event struct {
	Event    string `json:"event"`
	Approval struct {
		ID, Status, DecidedBy string
		RejectionReason       string `json:"rejection_reason"`
	} `json:"approval"`
}

func (r *recorder) event(t *testing.T) (string, event) {
	t.Helper()
	h := r.next(t)
	var e event
	if err := json.Unmarshal(h.Body, &e); err != nil {
		t.Fatalf("%s: %v", h.Body, err)
	}
	return h.Path, e
}

// Decisions are notified too: approved, rejected (with the reason) and
// expired, each once.
func TestDecisionsAreNotified(t *testing.T) {
	rec := newRecorder(t)
	var l logs
	r := start(t, &l, notify.Webhook{Name: "hook", URL: rec.URL})
	ctx, now := context.Background(), time.Now()
	file := func(fp string, limit time.Duration) store.Record {
		a, _, err := r.st.File(ctx, "demo", store.FileInput{Fingerprint: fp, ListenerName: "payments", ApprovalRule: "r", TimeLimit: limit}, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, e := rec.event(t); e.Event != store.EventRequested || e.Approval.ID != a.ID {
			t.Fatalf("filing %s: %+v", a.ID, e)
		}
		return a
	}
	a := file("v1:a", 0)
	if _, _, err := r.st.Decide(ctx, a.ID, domain.StatusApproved, "", "alice", now); err != nil {
		t.Fatal(err)
	}
	if _, e := rec.event(t); e.Event != store.EventApproved || e.Approval.ID != a.ID || e.Approval.Status != "APPROVED" {
		t.Errorf("approval: %+v", e)
	}
	b := file("v1:b", 0)
	if _, _, err := r.st.Decide(ctx, b.ID, domain.StatusRejected, "not on a Friday", "bob", now); err != nil {
		t.Fatal(err)
	}
	if _, e := rec.event(t); e.Event != store.EventRejected || e.Approval.RejectionReason != "not on a Friday" {
		t.Errorf("rejection: %+v", e)
	}
	c := file("v1:c", time.Second)
	if _, e := rec.event(t); e.Event != store.EventExpired || e.Approval.ID != c.ID || e.Approval.Status != "EXPIRED" {
		t.Errorf("expiry: %+v", e)
	}
	waitDelivered(t, r.ob, 6)
	r.n.Close(ctx)
	if n := rec.posts(); n != 6 {
		t.Errorf("want 6 notifications (3 filings, 3 decisions), got %d", n)
	}
}

// A request still PENDING after its policy's remind_after is announced
// again, once, to the escalate_to webhook only.
func TestReminderGoesToTheEscalation(t *testing.T) {
	rec := newRecorder(t)
	var l logs
	hooks := []notify.Webhook{{Name: "team", URL: rec.URL + "/team"}, {Name: "pager", URL: rec.URL + "/pager"}}
	st := storetest.Open(t, "sqlite", store.WithOutbox(notify.Names(hooks)))
	o := options(st, &l, hooks)
	o.Remind = func(rule string) (time.Duration, string) {
		if rule == "slow" {
			return time.Second, "pager"
		}
		return 0, ""
	}
	r := startOn(t, st, o)
	ctx := context.Background()
	a, _, err := r.st.File(ctx, "demo", store.FileInput{Fingerprint: "v1:a", ListenerName: "payments", ApprovalRule: "slow"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for range 3 {
		path, e := rec.event(t)
		seen[path+" "+e.Event] = e.Approval.ID
	}
	want := map[string]string{"/team approval.requested": a.ID, "/pager approval.requested": a.ID, "/pager approval.reminder": a.ID}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", seen, want)
	}
	waitDelivered(t, r.ob, 3)
	r.n.Close(ctx)
	if n := rec.posts(); n != 3 {
		t.Errorf("the reminder was sent more than once: %d POSTs", n)
	}
}

// With several replicas on one PostgreSQL database, each notification is
// delivered once.
func TestReplicasDeliverEachOnce(t *testing.T) {
	rec := newRecorder(t)
	hooks := []notify.Webhook{{Name: "hook", URL: rec.URL}}
	addr := storetest.Addr(t, "postgres")
	var stores []store.Store
	var l logs
	for range 3 {
		st := storetest.OpenAddr(t, addr, store.WithOutbox(notify.Names(hooks)))
		stores = append(stores, st)
		startOn(t, st, options(st, &l, hooks))
	}
	const total = 60
	var wg sync.WaitGroup
	for i := range total {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := stores[i%3].File(context.Background(), "demo",
				store.FileInput{Fingerprint: fmt.Sprintf("v1:%d", i), ListenerName: "l", ApprovalRule: "r"}, time.Now()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	ids := map[string]int{}
	for range total {
		_, e := rec.event(t)
		ids[e.Approval.ID]++
	}
	ob, _ := store.OutboxOf(stores[0])
	waitDelivered(t, ob, total)
	if n := rec.posts(); len(ids) != total || n != total {
		t.Errorf("%d requests filed on 3 replicas: %d distinct notified, %d POSTs", total, len(ids), n)
	}
}

// waitDelivered waits until the outbox holds want delivered notifications
// and nothing else: once they are marked, none is sent again, so the POSTs
// can be counted.
func waitDelivered(t *testing.T, ob store.Outbox, want int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := ob.Counts(context.Background())
		if err == nil && c[store.OutboxDelivered] == want && len(c) == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("outbox %v %v, want %d delivered", c, err, want)
		}
	}
}

// Slack says what happened and who decided, with the reason.
func TestSlackDecisionText(t *testing.T) {
	rec := newRecorder(t)
	var l logs
	r := start(t, &l, notify.Webhook{Name: "slack", URL: rec.URL, Format: notify.FormatSlack})
	rj := record()
	rj.Status, rj.DecidedBy, rj.RejectionReason = domain.StatusRejected, "bob<", "not on a Friday"
	if _, err := r.ob.Announce(context.Background(), rj, store.EventRejected, r.hooks, time.Now()); err != nil {
		t.Fatal(err)
	}
	r.n.Wake()
	var body struct{ Text string }
	_ = json.Unmarshal(rec.next(t).Body, &body)
	if body.Text != "Rejected by bob&lt; on demo / payments (postgres) (rule db-destructive): <https://cp.example/#r-9f97c0de-1|open it>" {
		t.Errorf("text: %q", body.Text)
	}
}
