package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// claimDropper forwards to the Control Plane; for the first drop claim
// calls it lets the Control Plane apply the claim, then resets the
// connection without its answer. after runs once, after the first dropped
// answer.
type claimDropper struct {
	mu    sync.Mutex
	drop  int
	after func()
	rp    *httputil.ReverseProxy
}

func (d *claimDropper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	dropping := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/claim") && d.drop > 0
	var after func()
	if dropping {
		d.drop--
		after, d.after = d.after, nil
	}
	d.mu.Unlock()
	if !dropping {
		d.rp.ServeHTTP(w, r)
		return
	}
	d.rp.ServeHTTP(httptest.NewRecorder(), r) // applied at the Control Plane
	if after != nil {
		after()
	}
	panic(http.ErrAbortHandler) // the answer is lost on the way back
}

func breakSidecar(t *testing.T, cp *servertest.CP, d *claimDropper, limit time.Duration) (*app.Listener, *controlplane.Client) {
	t.Helper()
	u, _ := url.Parse(cp.URL)
	d.rp = httputil.NewSingleHostReverseProxy(u)
	proxy := httptest.NewServer(d)
	t.Cleanup(proxy.Close)
	c, err := controlplane.New(controlplane.Options{URL: proxy.URL, Token: controlplane.StaticToken(demo), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	core := app.NewCore(app.CoreOptions{Sidecar: "demo", CP: c, Clock: cp.Clock})
	rule := domain.ApprovalRule{Name: "db-destructive", Match: domain.Match{Actions: []string{"DELETE"}}, TimeLimit: limit}
	if err := rule.Match.Compile(); err != nil {
		t.Fatal(err)
	}
	l := core.Listener(app.ListenerSettings{Name: "pg", Protocol: "postgres", Mode: app.ModeReturn,
		SpendOn: ports.SpendOnAccepted, Approvals: []domain.ApprovalRule{rule}})
	return l, c
}

var breakStmt = app.Statement{Identity: "agent", Canonical: []byte("DELETE FROM invoices WHERE id = 42"),
	Display: "DELETE FROM invoices WHERE id = 42", Analysis: domain.Analysis{Actions: []string{"DELETE"}}}

// End to end (the Sidecar's client, a proxy, the reference Control Plane on
// SQLite) for app/break_claims_test.go: the claim's first try is applied
// and its answer lost; the client's keyed retry arrives after expires_at
// and is answered 409 claim_lost PROCESSING; the gate denies and the
// approval stays PROCESSING for good (MEDIUM).
func TestBreakE2EClaimRetriedPastTheLimitLeavesProcessing(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	d := &claimDropper{}
	l, c := breakSidecar(t, cp, d, time.Minute)
	out := l.Check(context.Background(), breakStmt)
	if out.Denial == nil || out.Denial.ApprovalID == "" {
		t.Fatalf("first send: %+v", out)
	}
	id := out.Denial.ApprovalID
	if a := cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil); a.Status != 200 {
		t.Fatalf("approve: %s", a.Raw)
	}
	cp.Clock.Set(t0.Add(59 * time.Second))
	d.drop, d.after = 1, func() { cp.Clock.Set(t0.Add(61 * time.Second)) }
	if out := l.Check(context.Background(), breakStmt); out.Forward {
		t.Fatal("forwarded after the time limit")
	}
	for i := 0; i < 3; i++ { // later resends, later still
		cp.Clock.Set(t0.Add(time.Duration(i+2) * time.Hour))
		if out := l.Check(context.Background(), breakStmt); out.Forward {
			t.Fatal("forwarded")
		}
	}
	if a, err := c.Get(context.Background(), id); err != nil || a.Status == domain.StatusProcessing {
		t.Fatalf("approval %s: %s %v, hours after its time limit, with nothing forwarded; want EXPIRED (given back)", id, a.Status, err)
	}
}

// End to end for app/break_keepskeys_test.go: a fresh Sidecar's first claim
// is applied and every try's answer lost; the resend comes after the time
// limit; release skips the give-back because the client has not seen a
// claim_key echo yet. PROCESSING for good (MEDIUM).
func TestBreakE2EFirstLostClaimOfAProcessIsNeverGivenBack(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	d := &claimDropper{}
	l, c := breakSidecar(t, cp, d, time.Hour)
	out := l.Check(context.Background(), breakStmt)
	if out.Denial == nil || out.Denial.ApprovalID == "" {
		t.Fatalf("first send: %+v", out)
	}
	id := out.Denial.ApprovalID
	if a := cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil); a.Status != 200 {
		t.Fatalf("approve: %s", a.Raw)
	}
	d.drop = 3 // every try of the claim
	if out := l.Check(context.Background(), breakStmt); out.Forward || out.Denial.Kind != domain.DeniedUnavailable {
		t.Fatalf("resend: %+v, want denied as unavailable", out)
	}
	cp.Clock.Set(t0.Add(2 * time.Hour))
	if out := l.Check(context.Background(), breakStmt); out.Forward {
		t.Fatal("forwarded after the time limit")
	}
	if a, err := c.Get(context.Background(), id); err != nil || a.Status == domain.StatusProcessing {
		t.Fatalf("approval %s: %s %v with nothing forwarded (KeepsClaimKeys=%v); want EXPIRED (given back)", id, a.Status, err, c.KeepsClaimKeys())
	}
}
