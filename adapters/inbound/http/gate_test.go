package httplistener_test

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

func TestAllowedRequestIsForwardedAsAReverseProxy(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL,
		Approvals: []domain.ApprovalRule{deleteRule(t)}})

	resp, body := send(t, "POST", "http://"+addr+"/v1/items?x=1&y=2", `{"a":1}`,
		"Content-Type", "application/json", "X-Hoop-Approval", "return",
		"X-Forwarded-For", "6.6.6.6", "X-Custom", "kept")
	if resp.StatusCode != 200 || body != "upstream ok POST /v1/items" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	got := rec.all()
	if len(got) != 1 {
		t.Fatalf("upstream saw %d requests", len(got))
	}
	r := got[0]
	if r.RawQuery != "x=1&y=2" || string(r.Body) != `{"a":1}` || r.Header.Get("X-Custom") != "kept" {
		t.Errorf("request changed on the way: %+v", r)
	}
	if r.Host != strings.TrimPrefix(up.URL, "http://") {
		t.Errorf("Host = %q, want the upstream's", r.Host)
	}
	if r.Header.Get("X-Forwarded-Host") != addr || r.Header.Get("X-Forwarded-Proto") != "http" ||
		r.Header.Get("X-Forwarded-For") != "127.0.0.1" {
		t.Errorf("X-Forwarded-*: %v", r.Header)
	}
	if r.Header.Get("X-Hoop-Approval") != "" {
		t.Error("X-Hoop-Approval reached the upstream")
	}
	if len(sc.CP.Records()) != 0 {
		t.Error("an allowed request filed an approval")
	}
}

func TestReturnModeDenialResendRunsOnceThenNewRequest(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL,
		Approvals: []domain.ApprovalRule{deleteRule(t)}})
	url := "http://" + addr + "/v1/items/42?force=true"

	resp, body := send(t, "DELETE", url, "", "X-Hoop-Approval", "return")
	if resp.StatusCode != 403 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	id := resp.Header.Get("X-Hoop-Approval-Id")
	want := map[string]string{"X-Hoop-Denied": "review", "X-Hoop-Approval-Status": "PENDING",
		"X-Hoop-Review-Id": id, "X-Hoop-Review-Status": "PENDING", "Retry-After": "5",
		"Content-Type": "text/plain; charset=utf-8"}
	for k, v := range want {
		if resp.Header.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, resp.Header.Get(k), v)
		}
	}
	wantBody := "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval " + id + ")"
	if id == "" || body != wantBody {
		t.Errorf("body %q, want %q", body, wantBody)
	}

	// Pending: the same send reuses the request, still denied.
	resp, _ = send(t, "DELETE", url, "", "X-Hoop-Approval", "return")
	if resp.StatusCode != 403 || resp.Header.Get("X-Hoop-Approval-Id") != id {
		t.Fatalf("second send: %d id %q", resp.StatusCode, resp.Header.Get("X-Hoop-Approval-Id"))
	}
	// A different query is another statement.
	resp, _ = send(t, "DELETE", "http://"+addr+"/v1/items/42", "", "X-Hoop-Approval", "return")
	if other := resp.Header.Get("X-Hoop-Approval-Id"); other == "" || other == id {
		t.Errorf("other statement got id %q", other)
	}

	if err := sc.CP.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	resp, body = send(t, "DELETE", url, "", "X-Hoop-Approval", "return")
	if resp.StatusCode != 200 || body != "upstream ok DELETE /v1/items/42" {
		t.Fatalf("approved resend: %d %q", resp.StatusCode, body)
	}
	if n := rec.count("DELETE", "/v1/items/42"); n != 1 {
		t.Errorf("upstream saw the DELETE %d times", n)
	}
	resp, _ = send(t, "DELETE", url, "", "X-Hoop-Approval", "return")
	if third := resp.Header.Get("X-Hoop-Approval-Id"); resp.StatusCode != 403 || third == "" || third == id {
		t.Errorf("third send: %d id %q (first %q)", resp.StatusCode, third, id)
	}
	if n := rec.count("DELETE", "/v1/items/42"); n != 1 {
		t.Errorf("upstream saw the DELETE %d times after the third send", n)
	}
}

func TestBodyAndContentTypeArePartOfTheStatement(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	post := rule(t, "posts", []string{"POST"}, []string{"/v1/transfers"}, 0)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{post}})
	url := "http://" + addr + "/v1/transfers"

	resp, _ := send(t, "POST", url, `{"amount":10}`, "Content-Type", "application/json")
	id := resp.Header.Get("X-Hoop-Approval-Id")
	if resp.StatusCode != 403 || id == "" {
		t.Fatalf("first: %d", resp.StatusCode)
	}
	if st := sc.CP.Records()[0].Statement; !strings.Contains(st, "POST /v1/transfers") || !strings.Contains(st, `{"amount":10}`) {
		t.Errorf("approver sees %q", st)
	}
	_ = sc.CP.Decide(id, domain.StatusApproved, "")
	for _, c := range []struct{ body, ct string }{{`{"amount":99}`, "application/json"}, {`{"amount":10}`, "text/plain"}} {
		resp, _ = send(t, "POST", url, c.body, "Content-Type", c.ct)
		if resp.StatusCode != 403 || resp.Header.Get("X-Hoop-Approval-Id") == id {
			t.Errorf("%s %s used the approval of another statement: %d", c.ct, c.body, resp.StatusCode)
		}
	}
	resp, body := send(t, "POST", url, `{"amount":10}`, "Content-Type", "application/json")
	if resp.StatusCode != 200 {
		t.Fatalf("identical resend: %d %q", resp.StatusCode, body)
	}
	r := rec.all()
	if len(r) != 1 || string(r[0].Body) != `{"amount":10}` || r[0].Header.Get("Content-Length") != "13" {
		t.Errorf("upstream got %+v", r)
	}
}

func TestIdentityKeysSeparatePrincipals(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		IdentityKeys: []string{"authorization"}, Approvals: []domain.ApprovalRule{deleteRule(t)}})
	url := "http://" + addr + "/v1/items/1"
	resp, _ := send(t, "DELETE", url, "", "Authorization", "Bearer alice")
	id := resp.Header.Get("X-Hoop-Approval-Id")
	_ = sc.CP.Decide(id, domain.StatusApproved, "")
	resp, _ = send(t, "DELETE", url, "", "Authorization", "Bearer mallory")
	if resp.StatusCode != 403 || resp.Header.Get("X-Hoop-Approval-Id") == id {
		t.Fatalf("another principal used alice's approval: %d", resp.StatusCode)
	}
	resp, _ = send(t, "DELETE", url, "", "Authorization", "Bearer alice")
	if resp.StatusCode != 200 || rec.count("DELETE", "/v1/items/1") != 1 {
		t.Fatalf("alice's resend: %d", resp.StatusCode)
	}
}

func TestRulesSeeNormalizedPathsAndMethodOverrides(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{rule(t, "del", []string{"DELETE"}, []string{"/v1/items/*"}, 0)}})
	for _, c := range []struct{ method, path string }{
		{"DELETE", "/v1//items/7"}, {"DELETE", "/v1/./items/7/"}, {"DELETE", "/v1/x/../items/7"},
		{"delete", "/v1/items/7"},
	} {
		resp, _ := send(t, c.method, "http://"+addr+c.path, "")
		if resp.StatusCode != 403 {
			t.Errorf("%s %s: %d, want held", c.method, c.path, resp.StatusCode)
		}
	}
	resp, _ := send(t, "POST", "http://"+addr+"/v1/items/7", "", "X-HTTP-Method-Override", "DELETE")
	if resp.StatusCode != 403 {
		t.Errorf("POST with method override DELETE: %d, want held", resp.StatusCode)
	}
	if len(rec.all()) != 0 {
		t.Errorf("upstream saw %+v", rec.all())
	}
}

func TestWaitModeHoldsUntilApproved(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeWait,
		WaitTimeout: time.Minute, Approvals: []domain.ApprovalRule{deleteRule(t)}})
	go func() {
		for {
			if recs := sc.CP.Records(); len(recs) == 1 {
				_ = sc.CP.Decide(recs[0].ID, domain.StatusApproved, "")
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	resp, body := send(t, "DELETE", "http://"+addr+"/v1/items/5", "")
	if resp.StatusCode != 200 || body != "upstream ok DELETE /v1/items/5" || rec.count("DELETE", "/v1/items/5") != 1 {
		t.Fatalf("held request: %d %q", resp.StatusCode, body)
	}
}

func TestRetryAfterOnlyWhilePendingInReturnMode(t *testing.T) {
	up, _ := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeWait,
		WaitTimeout: 50 * time.Millisecond, Approvals: []domain.ApprovalRule{deleteRule(t)}})
	url := "http://" + addr + "/v1/items/9"

	// Wait mode, timed out while PENDING: no Retry-After.
	resp, _ := send(t, "DELETE", url, "")
	if resp.StatusCode != 403 || resp.Header.Get("X-Hoop-Approval-Status") != "PENDING" {
		t.Fatalf("wait timeout: %d %v", resp.StatusCode, resp.Header)
	}
	if _, ok := resp.Header["Retry-After"]; ok {
		t.Error("Retry-After sent in wait mode")
	}
	// Return mode, PENDING: Retry-After: 5.
	resp, _ = send(t, "DELETE", url, "", "X-Hoop-Approval", "return")
	id := resp.Header.Get("X-Hoop-Approval-Id")
	if resp.Header.Get("Retry-After") != "5" {
		t.Errorf("return mode PENDING: Retry-After %q", resp.Header.Get("Retry-After"))
	}
	// Return mode, REJECTED: no Retry-After, the status and the reason.
	_ = sc.CP.Decide(id, domain.StatusRejected, "not today")
	resp, body := send(t, "DELETE", url, "", "X-Hoop-Approval", "return")
	if resp.Header.Get("X-Hoop-Approval-Status") != "REJECTED" || resp.Header.Get("X-Hoop-Review-Status") != "REJECTED" {
		t.Errorf("rejected: %v", resp.Header)
	}
	if _, ok := resp.Header["Retry-After"]; ok {
		t.Error("Retry-After sent for a REJECTED request")
	}
	if !strings.Contains(body, "rejected by a person (not today)") || !strings.Contains(body, id) {
		t.Errorf("rejected body %q", body)
	}
}

func TestStatusHeaderAbsentWhenReadAfterFilingFails(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	sc.CP.HideStatusOnFile = true
	sc.CP.getFails.Store(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{deleteRule(t)}})
	resp, body := send(t, "DELETE", "http://"+addr+"/v1/items/3", "")
	id := resp.Header.Get("X-Hoop-Approval-Id")
	if resp.StatusCode != 403 || id == "" || resp.Header.Get("X-Hoop-Review-Id") != id || resp.Header.Get("X-Hoop-Denied") != "review" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	for _, k := range []string{"X-Hoop-Approval-Status", "X-Hoop-Review-Status", "Retry-After"} {
		if _, ok := resp.Header[k]; ok {
			t.Errorf("%s present although the status was not read", k)
		}
	}
	if !strings.Contains(body, id) || len(rec.all()) != 0 {
		t.Errorf("body %q, upstream %d", body, len(rec.all()))
	}
}

func TestPolicyAndUnavailableDenials(t *testing.T) {
	up, rec := newUpstream(t, nil)
	m := domain.Match{Actions: []string{"PUT"}}
	policy := domain.PolicyRule{Name: "no-put", Match: m, Message: "PUT is off"}

	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Policies: []domain.PolicyRule{policy}, Approvals: []domain.ApprovalRule{deleteRule(t)}})
	resp, body := send(t, "PUT", "http://"+addr+"/v1/x", "data")
	if resp.StatusCode != 403 || resp.Header.Get("X-Hoop-Denied") != "policy" || body != "statement denied by policy no-put: PUT is off" {
		t.Errorf("policy: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	if _, ok := resp.Header["X-Hoop-Approval-Id"]; ok {
		t.Error("policy denial carries an approval id")
	}

	sc.CP.down.Store(true)
	resp, body = send(t, "DELETE", "http://"+addr+"/v1/x", "")
	if resp.StatusCode != 403 || resp.Header.Get("X-Hoop-Denied") != "policy" || !strings.Contains(body, "Control Plane is unreachable") {
		t.Errorf("unavailable: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	// Statements that need no approval keep flowing.
	resp, _ = send(t, "GET", "http://"+addr+"/v1/x", "")
	if resp.StatusCode != 200 {
		t.Errorf("GET with the Control Plane down: %d", resp.StatusCode)
	}

	noCP := newSidecar(false)
	addr = noCP.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{deleteRule(t)}})
	resp, _ = send(t, "DELETE", "http://"+addr+"/v1/x", "")
	if resp.StatusCode != 403 || resp.Header.Get("X-Hoop-Denied") != "policy" {
		t.Errorf("no Control Plane: %d %v", resp.StatusCode, resp.Header)
	}
	if rec.count("PUT", "/v1/x") != 0 || rec.count("DELETE", "/v1/x") != 0 {
		t.Error("a denied request reached the upstream")
	}
}

// spend_approval_on: accepted gives an approval back only with proof that
// nothing ran (spend.go): a 409 refusal gives it back; an upstream that hung
// up without an answer, or a 500, may have acted, so it spends the approval
// and the next identical request is held under a new one (issue 24).
func TestSpendApprovalOnAccepted(t *testing.T) {
	var mode atomic.Int32 // 0: hang up without an answer, 1: 409, 2: 200, 3: 500
	up, rec := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case 0:
			c, _, _ := w.(http.Hijacker).Hijack()
			_ = c.Close()
		case 1:
			http.Error(w, "upstream refused", http.StatusConflict)
		case 3:
			http.Error(w, "upstream failed", http.StatusInternalServerError)
		default:
			_, _ = w.Write([]byte("done"))
		}
	})
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		SpendOn: ports.SpendOnAccepted, Approvals: []domain.ApprovalRule{deleteRule(t)}})
	url := "http://" + addr + "/v1/items/8"
	status := func(id string) domain.Status {
		a, err := sc.CP.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return a.Status
	}
	approved := func(prev string) string {
		t.Helper()
		resp, _ := send(t, "DELETE", url, "")
		id := resp.Header.Get("X-Hoop-Approval-Id")
		if resp.StatusCode != 403 || id == "" || id == prev {
			t.Fatalf("want a new approval held, got %d id %q (previous %q)", resp.StatusCode, id, prev)
		}
		_ = sc.CP.Decide(id, domain.StatusApproved, "")
		return id
	}

	id := approved("")
	mode.Store(1)
	resp, body := send(t, "DELETE", url, "")
	if resp.StatusCode != 409 || !strings.Contains(body, "upstream refused") || status(id) != domain.StatusApproved {
		t.Fatalf("refused resend: %d %q, approval %s, want APPROVED (given back)", resp.StatusCode, body, status(id))
	}
	mode.Store(0)
	resp, _ = send(t, "DELETE", url, "")
	if resp.StatusCode != http.StatusBadGateway || status(id) != domain.StatusExecuted {
		t.Fatalf("upstream hung up: %d, approval %s, want 502 and EXECUTED (outcome lost)", resp.StatusCode, status(id))
	}
	id = approved(id)
	mode.Store(3)
	resp, _ = send(t, "DELETE", url, "")
	if resp.StatusCode != 500 || status(id) != domain.StatusExecuted {
		t.Fatalf("upstream 500: %d, approval %s, want EXECUTED (outcome unknown)", resp.StatusCode, status(id))
	}
	id = approved(id)
	mode.Store(2)
	resp, body = send(t, "DELETE", url, "")
	if resp.StatusCode != 200 || body != "done" || status(id) != domain.StatusExecuted {
		t.Fatalf("accepted resend: %d %q, approval %s, want EXECUTED", resp.StatusCode, body, status(id))
	}
	if n := rec.count("DELETE", "/v1/items/8"); n != 4 {
		t.Errorf("upstream saw %d DELETEs, want 4 (refused, hung up, failed, accepted)", n)
	}
	approved(id)
}

// An approved request whose upstream cannot be reached at all never left
// the Sidecar: the approval is given back (domain.NotSent).
func TestSpendOnAcceptedUnreachableUpstreamGivesBack(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: dead, Mode: app.ModeReturn,
		SpendOn: ports.SpendOnAccepted, Approvals: []domain.ApprovalRule{deleteRule(t)}})
	url := "http://" + addr + "/v1/items/9"
	resp, _ := send(t, "DELETE", url, "")
	id := resp.Header.Get("X-Hoop-Approval-Id")
	_ = sc.CP.Decide(id, domain.StatusApproved, "")
	resp, _ = send(t, "DELETE", url, "")
	a, _ := sc.CP.Get(t.Context(), id)
	if resp.StatusCode != http.StatusBadGateway || a.Status != domain.StatusApproved {
		t.Fatalf("unreachable upstream: %d, approval %s, want 502 and APPROVED", resp.StatusCode, a.Status)
	}
}

func TestHeldBodyLimit(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	post := rule(t, "posts", []string{"POST"}, nil, 0)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{post}})
	big := strings.Repeat("x", 8<<20+1)
	// Like curl, the client waits for 100 Continue before a large body, so
	// it reads the 413 instead of a reset.
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/upload", strings.NewReader(big))
	req.Header.Set("Expect", "100-continue")
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, ExpectContinueTimeout: time.Minute}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || len(rec.all()) != 0 || len(sc.CP.Records()) != 0 {
		t.Errorf("%d, upstream %d, filed %d", resp.StatusCode, len(rec.all()), len(sc.CP.Records()))
	}
	// Bodies of requests no rule covers are not limited.
	resp, _ = send(t, "PUT", "http://"+addr+"/v1/upload", big)
	if resp.StatusCode != 200 || len(rec.all()[0].Body) != len(big) {
		t.Errorf("unheld big PUT: %d", resp.StatusCode)
	}
}

func TestApprovedStatementIsNeverReplayedUpstream(t *testing.T) {
	up, rec := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/secret" {
			c, _, _ := w.(http.Hijacker).Hijack() // read the request, then drop the connection
			_ = c.Close()
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{rule(t, "reads", []string{"GET"}, []string{"/v1/secret"}, 0)}})
	resp, _ := send(t, "GET", "http://"+addr+"/v1/secret", "")
	_ = sc.CP.Decide(resp.Header.Get("X-Hoop-Approval-Id"), domain.StatusApproved, "")
	// An allowed request leaves a kept-alive upstream connection behind.
	if resp, _ = send(t, "GET", "http://"+addr+"/v1/other", ""); resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	resp, _ = send(t, "GET", "http://"+addr+"/v1/secret", "")
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d, want 502", resp.StatusCode)
	}
	if n := rec.count("GET", "/v1/secret"); n != 1 {
		t.Errorf("the approved GET reached the upstream %d times, want once", n)
	}
}
