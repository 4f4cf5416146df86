package httplistener_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// statusChecks are the headers every status path answer carries.
func statusChecks(t *testing.T, resp *http.Response, code int) {
	t.Helper()
	if resp.StatusCode != code {
		t.Errorf("status %d, want %d", resp.StatusCode, code)
	}
	if resp.Header.Get("Cache-Control") != "no-store" || !resp.Close || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v close=%v", resp.Header, resp.Close)
	}
}

func TestStatusPathAnswers(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	limited := rule(t, "limited", []string{"PATCH"}, nil, 30*time.Minute)
	settings := app.ListenerSettings{Name: "billing-api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{deleteRule(t), limited}}
	addr := sc.serve(t, settings)
	settings.Name = "other"
	other := sc.serve(t, settings)

	resp, _ := send(t, "DELETE", "http://"+addr+"/v1/a", "")
	id := resp.Header.Get("X-Hoop-Approval-Id")

	for _, p := range []string{"/.well-known/hoop/approvals/", "/.well-known/hoop/reviews/"} {
		resp, body := send(t, "GET", "http://"+addr+p+id, "")
		statusChecks(t, resp, 200)
		m := jsonObject(t, body)
		want := map[string]any{"id": id, "status": "PENDING", "listener_name": "billing-api",
			"approval_rule": "deletes", "decided_at": nil, "next": "wait"}
		for k, v := range want {
			if m[k] != v {
				t.Errorf("%s: %s = %v, want %v", p, k, m[k], v)
			}
		}
		if _, err := time.Parse(time.RFC3339, m["created_at"].(string)); err != nil {
			t.Errorf("created_at %v", m["created_at"])
		}
		if len(m) != 7 {
			t.Errorf("keys %v: want exactly id status listener_name approval_rule created_at decided_at next", m)
		}
	}
	resp, body := send(t, "HEAD", "http://"+addr+"/.well-known/hoop/approvals/"+id, "")
	statusChecks(t, resp, 200)
	if body != "" || resp.ContentLength <= 0 {
		t.Errorf("HEAD body %q length %d", body, resp.ContentLength)
	}

	// Rejected with a reason; a rule with a time limit has expires_at.
	_ = sc.CP.Decide(id, domain.StatusRejected, "freeze")
	_, body = send(t, "GET", "http://"+addr+"/.well-known/hoop/approvals/"+id, "")
	if m := jsonObject(t, body); m["rejection_reason"] != "freeze" || m["next"] != "stop" || m["decided_at"] == nil {
		t.Errorf("rejected view %v", m)
	}
	resp, _ = send(t, "PATCH", "http://"+addr+"/v1/a", "x")
	lid := resp.Header.Get("X-Hoop-Approval-Id")
	_ = sc.CP.Decide(lid, domain.StatusApproved, "")
	_, body = send(t, "GET", "http://"+addr+"/.well-known/hoop/approvals/"+lid, "")
	m := jsonObject(t, body)
	created, _ := time.Parse(time.RFC3339, m["created_at"].(string))
	expires, _ := time.Parse(time.RFC3339, m["expires_at"].(string))
	if m["next"] != "resend_identical_statement" || expires.Sub(created) != 30*time.Minute {
		t.Errorf("approved view with limit %v", m)
	}
	if _, ok := m["rejection_reason"]; ok {
		t.Error("rejection_reason present on an approval")
	}

	// 404: unknown id; an id filed on another listener.
	for _, u := range []string{"http://" + addr + "/.well-known/hoop/approvals/nope",
		"http://" + other + "/.well-known/hoop/approvals/" + id, "http://" + other + "/.well-known/hoop/reviews/" + id} {
		resp, body := send(t, "GET", u, "")
		statusChecks(t, resp, 404)
		if jsonObject(t, body)["message"] != "approval request not found on this listener" {
			t.Errorf("%s: %s", u, body)
		}
	}
	// 405 for every other method.
	for _, meth := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
		resp, body := send(t, meth, "http://"+addr+"/.well-known/hoop/approvals/"+id, "")
		statusChecks(t, resp, 405)
		if resp.Header.Get("Allow") != "GET, HEAD" || jsonObject(t, body)["message"] == "" {
			t.Errorf("%s: %v %s", meth, resp.Header, body)
		}
	}
	// 502: the Control Plane fails, or is older.
	sc.CP.down.Store(true)
	resp, body = send(t, "GET", "http://"+addr+"/.well-known/hoop/approvals/"+id, "")
	statusChecks(t, resp, 502)
	if msg, _ := jsonObject(t, body)["message"].(string); !strings.Contains(msg, "checks the approval request in the Control Plane") {
		t.Errorf("502 message %q", msg)
	}
	sc.CP.down.Store(false)
	sc.CP.older.Store(true)
	resp, body = send(t, "GET", "http://"+addr+"/.well-known/hoop/reviews/"+id, "")
	statusChecks(t, resp, 502)
	if msg, _ := jsonObject(t, body)["message"].(string); !strings.Contains(msg, "older than this Sidecar") {
		t.Errorf("502 older message %q", msg)
	}
	rec.assertNoReserved(t)
}

func TestStatusPathWithoutControlPlaneIs503(t *testing.T) {
	up, rec := newUpstream(t, nil)
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	for _, p := range []string{"/.well-known/hoop/approvals/x", "/.well-known/hoop/reviews/x"} {
		resp, body := send(t, "GET", "http://"+addr+p, "")
		statusChecks(t, resp, 503)
		if jsonObject(t, body)["message"] != "this Sidecar has no Control Plane, so it cannot report approval requests" {
			t.Errorf("%s", body)
		}
	}
	rec.assertNoReserved(t)
}
