package server_test

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
	"github.com/hoophq/sidecar/internal/testlog"
)

const (
	demo     = servertest.DemoToken
	other    = servertest.OtherToken
	approver = servertest.ApproverToken
)

var t0 = time.Date(2026, 9, 29, 14, 2, 11, 0, time.UTC)

func want(t *testing.T, a servertest.Answer, status int, code string) {
	t.Helper()
	if a.Status != status {
		t.Fatalf("status %d, want %d: %s", a.Status, status, a.Raw)
	}
	if got := a.Header.Get("X-Hoop-Api-Version"); got != "1" {
		t.Fatalf("X-Hoop-Api-Version %q, want 1", got)
	}
	if code != "" && a.JSON["code"] != code {
		t.Fatalf("code %v, want %s: %s", a.JSON["code"], code, a.Raw)
	}
}

func TestSidecarAPIFlow(t *testing.T) {
	for _, kind := range storetest.Kinds {
		t.Run(kind, func(t *testing.T) {
			cp := servertest.Start(t, kind, nil)
			cp.Clock.Set(t0)
			a := cp.File(demo, "v1:aa", nil)
			want(t, a, 201, "")
			id, _ := a.JSON["id"].(string)
			for k, v := range map[string]any{"status": "PENDING", "reused": false, "listener_name": "billing-api",
				"approval_rule": "billing-approvers", "protocol": "http", "fingerprint": "v1:aa",
				"created_at": "2026-09-29T14:02:11Z", "decided_at": nil} {
				if got, ok := a.JSON[k]; !ok || got != v {
					t.Fatalf("%s = %v (present %v), want %v", k, got, ok, v)
				}
			}
			for _, k := range []string{"statement", "expires_at", "rejection_reason", "client_identity"} {
				if _, ok := a.JSON[k]; ok {
					t.Fatalf("file answer has %q: %s", k, a.Raw)
				}
			}
			b := cp.File(demo, "v1:aa", nil)
			want(t, b, 200, "")
			if b.JSON["id"] != id || b.JSON["reused"] != true {
				t.Fatalf("reuse: %s", b.Raw)
			}
			want(t, cp.Do("GET", "/api/sidecars/reviews/"+id, other, nil), 404, "not_found")
			want(t, cp.Do("GET", "/api/sidecars/reviews/no-such-id", demo, nil), 404, "not_found")

			c := cp.Do("POST", "/api/sidecars/reviews/"+id+"/claim", demo, map[string]any{"fingerprint": "v1:aa", "spend_approval_on": "sent"})
			want(t, c, 409, "claim_lost")
			if c.JSON["claimed"] != false || c.JSON["review"].(map[string]any)["status"] != "PENDING" {
				t.Fatalf("claim_lost body: %s", c.Raw)
			}

			cp.Clock.Set(t0.Add(95 * time.Second))
			d := cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil)
			want(t, d, 200, "")
			if d.JSON["status"] != "APPROVED" || d.JSON["previous_status"] != "PENDING" || d.JSON["decided_by"] != "alice" {
				t.Fatalf("approve: %s", d.Raw)
			}
			want(t, cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil), 409, "conflict")

			r := cp.Do("GET", "/api/sidecars/reviews/"+id, demo, nil)
			want(t, r, 200, "")
			if r.JSON["status"] != "APPROVED" || r.JSON["decided_at"] != "2026-09-29T14:03:46Z" {
				t.Fatalf("read after approve: %s", r.Raw)
			}

			want(t, cp.Do("POST", "/api/sidecars/reviews/"+id+"/claim", other, map[string]any{"fingerprint": "v1:aa"}), 404, "not_found")
			c = cp.Do("POST", "/api/sidecars/reviews/"+id+"/claim", demo, map[string]any{"fingerprint": "v1:aa", "spend_approval_on": "accepted"})
			want(t, c, 200, "")
			if c.JSON["status"] != "PROCESSING" || c.JSON["claimed"] != true {
				t.Fatalf("claim: %s", c.Raw)
			}
			s := cp.Do("POST", "/api/sidecars/reviews/"+id+"/settle", demo, map[string]any{"outcome": "refused"})
			want(t, s, 200, "")
			if s.JSON["status"] != "APPROVED" {
				t.Fatalf("settle refused: %s", s.Raw)
			}
			c = cp.Do("POST", "/api/sidecars/reviews/"+id+"/claim", demo, map[string]any{"fingerprint": "v1:aa"})
			want(t, c, 200, "")
			if c.JSON["status"] != "EXECUTED" {
				t.Fatalf("claim (sent): %s", c.Raw)
			}
			want(t, cp.Do("POST", "/api/sidecars/reviews/"+id+"/settle", demo, map[string]any{"outcome": "accepted"}), 409, "not_processing")

			l := cp.Do("GET", "/api/sidecars/reviews?status=EXECUTED&limit=5", demo, nil)
			want(t, l, 200, "")
			if list := l.JSON["reviews"].([]any); len(list) != 1 || list[0].(map[string]any)["id"] != id {
				t.Fatalf("list: %s", l.Raw)
			}
			if strings.Contains(string(l.Raw), "statement") {
				t.Fatalf("the Sidecar API returned the statement: %s", l.Raw)
			}
			l = cp.Do("GET", "/api/sidecars/reviews", other, nil)
			if list := l.JSON["reviews"].([]any); len(list) != 0 {
				t.Fatalf("another sidecar lists this one's requests: %s", l.Raw)
			}
			// after EXECUTED the same statement files a new request
			if n := cp.File(demo, "v1:aa", nil); n.Status != 201 || n.JSON["id"] == id {
				t.Fatalf("file after EXECUTED: %s", n.Raw)
			}
		})
	}
}

func TestRejectWithReason(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	id := cp.File(demo, "v1:aa", nil).JSON["id"].(string)
	d := cp.Do("POST", "/api/reviews/"+id+"/reject", approver, map[string]string{"reason": "not during the freeze"})
	want(t, d, 200, "")
	r := cp.Do("GET", "/api/sidecars/reviews/"+id, demo, nil)
	if r.JSON["status"] != "REJECTED" || r.JSON["rejection_reason"] != "not during the freeze" || r.JSON["decided_at"] == nil {
		t.Fatalf("read after reject: %s", r.Raw)
	}
	want(t, cp.Do("POST", "/api/reviews/"+id+"/revoke", approver, nil), 409, "conflict")
	// a rejected request is reused: approvers are not flooded
	if b := cp.File(demo, "v1:aa", nil); b.Status != 200 || b.JSON["id"] != id || b.JSON["status"] != "REJECTED" {
		t.Fatalf("file after reject: %s", b.Raw)
	}
}

func TestAuthIsRequiredAndScoped(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	for _, c := range []struct{ method, path, token string }{
		{"GET", "/api/sidecars/info", ""},
		{"GET", "/api/sidecars/info", "wrong-token"},
		{"GET", "/api/sidecars/reviews", approver}, // approver token is not a Sidecar token
		{"GET", "/api/reviews", demo},              // Sidecar token is not an approver token
		{"POST", "/api/reviews/x/approve", ""},
	} {
		a := cp.Do(c.method, c.path, c.token, nil)
		want(t, a, 401, "unauthorized")
		if c.token != "" && strings.Contains(string(a.Raw), c.token) {
			t.Fatalf("401 echoes the token: %s", a.Raw)
		}
	}
	i := cp.Do("GET", "/api/sidecars/info", other, nil)
	want(t, i, 200, "")
	if i.JSON["sidecar"] != "other" || i.JSON["api_version"] != float64(1) || i.JSON["version"] != "test" {
		t.Fatalf("info: %s", i.Raw)
	}
}

func TestInvalidInput(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	id := cp.File(demo, "v1:aa", nil).JSON["id"].(string)
	for _, c := range []struct {
		name, method, path string
		body               any
	}{
		{"no fingerprint", "POST", "/api/sidecars/reviews", map[string]any{"listener_name": "l", "approval_rule": "r"}},
		{"no listener", "POST", "/api/sidecars/reviews", map[string]any{"fingerprint": "f", "approval_rule": "r"}},
		{"no rule", "POST", "/api/sidecars/reviews", map[string]any{"fingerprint": "f", "listener_name": "l"}},
		{"negative limit", "POST", "/api/sidecars/reviews", map[string]any{"fingerprint": "f", "listener_name": "l", "approval_rule": "r", "time_limit_seconds": -1}},
		{"fractional limit", "POST", "/api/sidecars/reviews", `{"fingerprint":"f","listener_name":"l","approval_rule":"r","time_limit_seconds":1.5}`},
		{"not json", "POST", "/api/sidecars/reviews", "{nope"},
		{"bad status", "GET", "/api/sidecars/reviews?status=DONE", nil},
		{"lowercase status", "GET", "/api/sidecars/reviews?status=pending", nil},
		{"limit 0", "GET", "/api/sidecars/reviews?limit=0", nil},
		{"limit 201", "GET", "/api/sidecars/reviews?limit=201", nil},
		{"limit word", "GET", "/api/sidecars/reviews?limit=ten", nil},
		{"bad spend", "POST", "/api/sidecars/reviews/" + id + "/claim", map[string]any{"fingerprint": "v1:aa", "spend_approval_on": "later"}},
		{"bad outcome", "POST", "/api/sidecars/reviews/" + id + "/settle", map[string]any{"outcome": "maybe"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want(t, cp.Do(c.method, c.path, demo, c.body), 400, "invalid")
		})
	}
	want(t, cp.Do("GET", "/api/reviews?limit=500", approver, nil), 400, "invalid")
}

func TestTimeLimitReadsExpired(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil) // real clock
	a := cp.File(demo, "v1:limited", map[string]any{"time_limit_seconds": 1})
	want(t, a, 201, "")
	id := a.JSON["id"].(string)
	exp, err := time.Parse(time.RFC3339, fmt.Sprint(a.JSON["expires_at"]))
	if err != nil {
		t.Fatalf("expires_at: %v in %s", err, a.Raw)
	}
	created, _ := time.Parse(time.RFC3339, a.JSON["created_at"].(string))
	if !exp.Equal(created.Add(time.Second)) {
		t.Fatalf("expires_at %v, want created_at+1s (%v)", exp, created)
	}
	time.Sleep(time.Until(exp) + 50*time.Millisecond)
	r := cp.Do("GET", "/api/sidecars/reviews/"+id, demo, nil)
	want(t, r, 200, "")
	if r.JSON["status"] != "EXPIRED" || r.JSON["expires_at"] != a.JSON["expires_at"] || r.JSON["decided_at"] != a.JSON["expires_at"] {
		t.Fatalf("after the limit: %s", r.Raw)
	}
	l := cp.Do("GET", "/api/sidecars/reviews?status=EXPIRED", demo, nil)
	if list := l.JSON["reviews"].([]any); len(list) != 1 || list[0].(map[string]any)["id"] != id {
		t.Fatalf("EXPIRED list: %s", l.Raw)
	}
	want(t, cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil), 409, "conflict")

	n := cp.File(demo, "v1:unlimited", map[string]any{"time_limit_seconds": 0})
	want(t, n, 201, "")
	if _, ok := n.JSON["expires_at"]; ok {
		t.Fatalf("no time limit but expires_at is present: %s", n.Raw)
	}
	if r := cp.Do("GET", "/api/sidecars/reviews/"+n.JSON["id"].(string), demo, nil); strings.Contains(string(r.Raw), "expires_at") {
		t.Fatalf("no time limit but expires_at is present: %s", r.Raw)
	}
}

func TestFiftyConcurrentClaimsOverHTTP(t *testing.T) {
	for _, kind := range storetest.Kinds {
		t.Run(kind, func(t *testing.T) {
			cp := servertest.Start(t, kind, nil)
			id := cp.File(demo, "v1:aa", nil).JSON["id"].(string)
			want(t, cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil), 200, "")
			var wg sync.WaitGroup
			var mu sync.Mutex
			codes := map[int]int{}
			start := make(chan struct{})
			for i := 0; i < 50; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					a := cp.Do("POST", "/api/sidecars/reviews/"+id+"/claim", demo, map[string]any{"fingerprint": "v1:aa", "spend_approval_on": "sent"})
					mu.Lock()
					codes[a.Status]++
					mu.Unlock()
				}()
			}
			close(start)
			wg.Wait()
			if codes[200] != 1 || codes[409] != 49 {
				t.Fatalf("answers %v, want one 200 and 49 409", codes)
			}
		})
	}
}

func TestApproverSeesStatementAndSidecarReads(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	id := cp.File(demo, "v1:aa", nil).JSON["id"].(string)
	for i := 0; i < 3; i++ {
		cp.Do("GET", "/api/sidecars/reviews/"+id, demo, nil)
	}
	cp.Do("GET", "/api/sidecars/reviews/"+id, other, nil) // 404: not counted
	g := cp.Do("GET", "/api/reviews/"+id, approver, nil)
	want(t, g, 200, "")
	for k, v := range map[string]any{"sidecar": "demo", "statement": "DELETE /v1/invoices/42",
		"client_identity": "agent", "decided_by": nil, "sidecar_reads": float64(3)} {
		if got, ok := g.JSON[k]; !ok || got != v {
			t.Fatalf("%s = %v, want %v: %s", k, got, v, g.Raw)
		}
	}
	cp.File(other, "v1:bb", nil)
	l := cp.Do("GET", "/api/reviews?limit=10", approver, nil)
	if list := l.JSON["reviews"].([]any); len(list) != 2 {
		t.Fatalf("approver list must hold every Sidecar's: %s", l.Raw)
	}
	want(t, cp.Do("GET", "/api/reviews/nope", approver, nil), 404, "not_found")
}

func TestAPIVersionOverride(t *testing.T) {
	older := servertest.Start(t, "sqlite", func(o *server.Options) { o.OmitAPIVersion = true })
	if a := older.Do("GET", "/api/sidecars/info", demo, nil); a.Header.Get("X-Hoop-Api-Version") != "" || a.Status != 200 {
		t.Fatalf("omitted header: %d %q", a.Status, a.Header.Get("X-Hoop-Api-Version"))
	}
	v0 := servertest.Start(t, "sqlite", func(o *server.Options) { o.APIVersion = 7 })
	if a := v0.Do("GET", "/api/sidecars/info", demo, nil); a.Header.Get("X-Hoop-Api-Version") != "7" || a.JSON["api_version"] != float64(7) {
		t.Fatalf("api version 7: %q %s", a.Header.Get("X-Hoop-Api-Version"), a.Raw)
	}
}

func TestUnknownRouteIsPlain404(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	a := cp.Do("GET", "/api/sidecars/nothing-here", demo, nil)
	if a.Status != 404 || a.JSON != nil || a.Header.Get("X-Hoop-Api-Version") != "1" {
		t.Fatalf("unknown route: %d %q %s", a.Status, a.Header.Get("X-Hoop-Api-Version"), a.Raw)
	}
	if h := cp.Do("GET", "/healthz", "", nil); h.Status != 200 || h.JSON["status"] != "ok" {
		t.Fatalf("healthz: %d %s", h.Status, h.Raw)
	}
}

func TestOneLogLinePerRequest(t *testing.T) {
	var buf testlog.Buffer
	cp := servertest.Start(t, "sqlite", func(o *server.Options) {
		o.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	cp.Do("GET", "/api/sidecars/reviews/abc", demo, nil)
	cp.Do("GET", "/healthz", "", nil)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if strings.Contains(l, `msg="http request"`) {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("want 2 request lines, got %q", buf.String())
	}
	// Health probes are debug lines, every other request an info line.
	if !strings.Contains(lines[0], "level=INFO") || !strings.Contains(lines[1], "level=DEBUG") || !strings.Contains(lines[1], "path=/healthz") {
		t.Fatalf("levels: %q", lines)
	}
	for _, part := range []string{"method=GET", "path=/api/sidecars/reviews/abc", "status=404", "duration=", "caller=sidecar:demo"} {
		if !strings.Contains(lines[0], part) {
			t.Fatalf("log line %q lacks %q", lines[0], part)
		}
	}
	if strings.Contains(buf.String(), demo) {
		t.Fatal("the log holds a token")
	}
}
