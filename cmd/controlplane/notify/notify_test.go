package notify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/notify"
	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
	"github.com/hoophq/sidecar/domain"
)

// hit is one POST the recording server received.
type hit struct {
	Path   string
	Header http.Header
	Body   []byte
}

// recorder is the recording server: it keeps every POST and answers each
// with the next code of answers (200 once they run out).
type recorder struct {
	*httptest.Server
	mu      sync.Mutex
	hits    []hit
	answers []int
	got     chan hit
	block   chan struct{} // when set, every answer waits for it to close
}

func newRecorder(t *testing.T, answers ...int) *recorder {
	r := &recorder{answers: answers, got: make(chan hit, 100)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		h := hit{Path: req.URL.Path, Header: req.Header.Clone(), Body: b}
		r.mu.Lock()
		r.hits = append(r.hits, h)
		code := 200
		if len(r.answers) > 0 {
			code, r.answers = r.answers[0], r.answers[1:]
		}
		block := r.block
		r.mu.Unlock()
		r.got <- h
		if block != nil {
			<-block
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) next(t *testing.T) hit {
	t.Helper()
	select {
	case h := <-r.got:
		return h
	case <-time.After(30 * time.Second):
		t.Fatal("the webhook was not called")
		return hit{}
	}
}

// posts is how many POSTs the receiver has had.
func (r *recorder) posts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.hits)
}

// logs collects a Notifier's log lines.
type logs struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *logs) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func (l *logs) waitFor(t *testing.T, substr string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(l.String(), substr) {
			return
		}
	}
	t.Fatalf("no log line with %q:\n%s", substr, l.String())
}

func record() store.Record {
	created := time.Date(2026, 9, 29, 14, 2, 11, 0, time.UTC)
	exp := created.Add(30 * time.Minute)
	return store.Record{
		Approval: domain.Approval{ID: "9f97c0de-1", Status: domain.StatusPending, ListenerName: "payments",
			ApprovalRule: "db-destructive", CreatedAt: created, ExpiresAt: &exp},
		Sidecar: "demo", Protocol: "postgres", ClientIdentity: "agent<1>",
		Statement: "DROP TABLE invoices; -- <b>&```",
	}
}

// rig is a store whose changes queue notifications for hooks, and a
// Notifier delivering them.
type rig struct {
	st    store.Store
	ob    store.Outbox
	n     *notify.Notifier
	hooks []string
}

func options(st store.Store, l *logs, hooks []notify.Webhook) notify.Options {
	ob, _ := store.OutboxOf(st)
	return notify.Options{Outbox: ob, Store: st, Webhooks: hooks, PublicURL: "https://cp.example/", Version: "test",
		FirstRetry: 5 * time.Millisecond, PollEvery: 10 * time.Millisecond, SweepEvery: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(l, nil))}
}

func start(t *testing.T, l *logs, hooks ...notify.Webhook) rig {
	st := storetest.Open(t, "sqlite", store.WithOutbox(notify.Names(hooks)))
	return startOn(t, st, options(st, l, hooks))
}

func startOn(t *testing.T, st store.Store, o notify.Options) rig {
	n := notify.New(o)
	t.Cleanup(func() { n.Close(context.Background()) })
	return rig{st: st, ob: o.Outbox, n: n, hooks: notify.Names(o.Webhooks)}
}

// announce queues rec's filing as the store does for a new request.
func (r rig) announce(t *testing.T, rec store.Record) {
	t.Helper()
	if _, err := r.ob.Announce(context.Background(), rec, store.EventRequested, r.hooks, time.Now()); err != nil {
		t.Fatal(err)
	}
	r.n.Wake()
}

// The generic JSON POST: who asked, where, which rule, the link; no statement
// unless the config says so.
func TestJSONBody(t *testing.T) {
	rec := newRecorder(t)
	var l logs
	r := start(t, &l,
		notify.Webhook{Name: "plain", URL: rec.URL + "/plain", Format: notify.FormatJSON},
		notify.Webhook{Name: "full", URL: rec.URL + "/full", Format: notify.FormatJSON, IncludeStatement: true})
	r.announce(t, record())
	got := map[string]hit{}
	for range 2 {
		h := rec.next(t)
		got[h.Path] = h
	}
	for path, h := range got {
		if h.Header.Get("Content-Type") != "application/json" || h.Header.Get("X-Hoop-Event") != "approval.requested" ||
			h.Header.Get("X-Hoop-Delivery") != store.NotificationID("9f97c0de-1", store.EventRequested, path[1:]) || h.Header.Get("User-Agent") != "hoop-controlplane/test" {
			t.Errorf("%s: headers %v", path, h.Header)
		}
	}
	want := `{"event":"approval.requested","url":"https://cp.example/#r-9f97c0de-1","approval":{"id":"9f97c0de-1","status":"PENDING",` +
		`"sidecar":"demo","listener_name":"payments","approval_rule":"db-destructive","protocol":"postgres","client_identity":"agent\u003c1\u003e",` +
		`"created_at":"2026-09-29T14:02:11Z","expires_at":"2026-09-29T14:32:11Z"}}`
	if string(got["/plain"].Body) != want {
		t.Errorf("json body without the statement:\n got %s\nwant %s", got["/plain"].Body, want)
	}
	var full struct {
		Approval struct {
			Statement *string `json:"statement"`
		} `json:"approval"`
	}
	if err := json.Unmarshal(got["/full"].Body, &full); err != nil || full.Approval.Statement == nil || *full.Approval.Statement != record().Statement {
		t.Errorf("include_statement: true lost the statement: %s", got["/full"].Body)
	}
}

// Slack's incoming-webhook format: text plus blocks, a link to the request,
// the request's own text escaped, the statement only where configured.
func TestSlackBody(t *testing.T) {
	rec := newRecorder(t)
	var l logs
	r := start(t, &l,
		notify.Webhook{Name: "slack-plain", URL: rec.URL + "/plain", Format: notify.FormatSlack},
		notify.Webhook{Name: "slack-full", URL: rec.URL + "/full", Format: notify.FormatSlack, IncludeStatement: true})
	r.announce(t, record())
	got := map[string]hit{}
	for range 2 {
		h := rec.next(t)
		got[h.Path] = h
	}
	type block struct {
		Type string `json:"type"`
		Text struct {
			Type, Text string
		} `json:"text"`
	}
	var plain, full struct {
		Text   string  `json:"text"`
		Blocks []block `json:"blocks"`
	}
	if err := json.Unmarshal(got["/plain"].Body, &plain); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got["/full"].Body, &full); err != nil {
		t.Fatal(err)
	}
	if plain.Text != "Approval requested on demo / payments (postgres) (rule db-destructive): <https://cp.example/#r-9f97c0de-1|open it>" {
		t.Errorf("text: %q", plain.Text)
	}
	if len(plain.Blocks) != 2 || len(full.Blocks) != 3 {
		t.Fatalf("blocks: %d without the statement, %d with it:\n%s\n%s", len(plain.Blocks), len(full.Blocks), got["/plain"].Body, got["/full"].Body)
	}
	if b := plain.Blocks[0]; b.Type != "section" || b.Text.Type != "mrkdwn" ||
		b.Text.Text != "*Approval requested* on demo / payments (postgres)\nRule: db-destructive\nClient: agent&lt;1&gt;\nExpires: 2026-09-29T14:32:11Z" {
		t.Errorf("first block: %+v", b)
	}
	if b := plain.Blocks[1].Text.Text; b != "<https://cp.example/#r-9f97c0de-1|Open the request 9f97c0de-1 to approve or reject it>" {
		t.Errorf("link block: %q", b)
	}
	if strings.Contains(string(got["/plain"].Body), "DROP TABLE") {
		t.Errorf("the statement went to a webhook without include_statement: %s", got["/plain"].Body)
	}
	if b := full.Blocks[1].Text.Text; b != "```DROP TABLE invoices; -- &lt;b&gt;&amp;'''```" {
		t.Errorf("statement block: %q", b)
	}
}

// A receiver that fails is retried with backoff until it accepts; every try
// carries the same delivery id.
func TestRetriedWithBackoffUntilAccepted(t *testing.T) {
	rec := newRecorder(t, 503, 500, 429, 200)
	var l logs
	r := start(t, &l, notify.Webhook{Name: "flaky", URL: rec.URL})
	r.announce(t, record())
	var ids []string
	for range 4 {
		ids = append(ids, rec.next(t).Header.Get("webhook-id"))
	}
	l.waitFor(t, `msg="webhook: delivered" webhook=flaky id=9f97c0de-1 event=approval.requested tries=4`)
	if ids[0] == "" || ids[0] != ids[1] || ids[1] != ids[2] || ids[2] != ids[3] {
		t.Errorf("webhook-id differs between tries: %v", ids)
	}
	if c := strings.Count(l.String(), `msg="webhook: delivery failed; retrying" webhook=flaky`); c != 3 {
		t.Errorf("want 3 retry lines, got %d:\n%s", c, l.String())
	}
}

// An answer that retrying cannot change (a 4xx other than 408, 425, 429) is
// final: one try, then a log line.
func TestRefusalIsNotRetried(t *testing.T) {
	rec := newRecorder(t, 404, 200)
	var l logs
	r := start(t, &l, notify.Webhook{Name: "gone", URL: rec.URL})
	r.announce(t, record())
	rec.next(t)
	l.waitFor(t, `msg="webhook: gave up" webhook=gone id=9f97c0de-1 event=approval.requested tries=1 err="HTTP 404 (not retried)"`)
	if n := rec.posts(); n != 1 {
		t.Errorf("a 404 was retried: %d tries", n)
	}
}

// Filing never waits for a webhook: with the receiver hanging, the Sidecar
// API still answers 201 at once, and every filing is in the outbox.
func TestFilingNeverWaitsForAWebhook(t *testing.T) {
	rec := newRecorder(t)
	release := make(chan struct{})
	rec.block = release
	defer close(release)
	var l logs
	hooks := []notify.Webhook{{Name: "hanging", URL: rec.URL}}
	st := storetest.Open(t, "sqlite", store.WithOutbox(notify.Names(hooks)))
	o := options(st, &l, hooks)
	n := notify.New(o)
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		n.Close(ctx) // abandons the hanging deliveries
	})
	cp := servertest.StartOn(t, st, func(o *server.Options) { o.Requested = n.Requested })

	first := cp.File(servertest.DemoToken, "v1:aa", nil)
	if first.Status != 201 {
		t.Fatalf("file: %d %s", first.Status, first.Raw)
	}
	h := rec.next(t) // the receiver holds this POST until the test ends
	var body struct{ Approval struct{ ID string } }
	_ = json.Unmarshal(h.Body, &body)
	if body.Approval.ID != first.JSON["id"] {
		t.Fatalf("the webhook got %s, want the filed %v", h.Body, first.JSON["id"])
	}
	for i, fp := range []string{"v1:b1", "v1:b2", "v1:b3", "v1:b4", "v1:b5", "v1:b6"} {
		if a := cp.File(servertest.DemoToken, fp, nil); a.Status != 201 {
			t.Fatalf("file %d while the webhook hangs: %d %s", i, a.Status, a.Raw)
		}
	}
	counts, err := o.Outbox.Counts(context.Background())
	if err != nil || counts[store.OutboxQueued] != 7 {
		t.Fatalf("outbox after 7 filings with the receiver hanging: %v %v", counts, err)
	}
}

// A reused request (the same statement again) is not news: only new requests
// are notified.
func TestOnlyNewRequestsAreNotified(t *testing.T) {
	rec := newRecorder(t)
	var l logs
	r := start(t, &l, notify.Webhook{Name: "hook", URL: rec.URL})
	cp := servertest.StartOn(t, r.st, func(o *server.Options) { o.Requested = r.n.Requested })
	ids := map[string]bool{}
	for _, fp := range []string{"v1:aa", "v1:aa", "v1:bb"} {
		a := cp.File(servertest.DemoToken, fp, nil)
		ids[a.JSON["id"].(string)] = true
		l.waitFor(t, "webhook: delivered")
	}
	r.n.Close(context.Background())
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(ids) != 2 || len(rec.hits) != 2 {
		t.Fatalf("3 filings of 2 statements: %d ids, %d notifications:\n%s", len(ids), len(rec.hits), l.String())
	}
	for _, h := range rec.hits {
		var body struct{ Approval struct{ ID string } }
		_ = json.Unmarshal(h.Body, &body)
		if !ids[body.Approval.ID] {
			t.Errorf("notified %s, which was not filed", body.Approval.ID)
		}
		delete(ids, body.Approval.ID)
	}
}
