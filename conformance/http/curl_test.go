package httpconformance

import (
	"net/http"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// heldDeletes holds every DELETE under /v1/.
var heldDeletes = rule{Name: "api-deletes", Actions: []string{"DELETE"}, Targets: []string{"/v1/**"}}

// denialHeaders checks the spec's fields on a 403 approval denial.
func denialHeaders(t *testing.T, resp *http.Response, status string, retryAfter bool) string {
	t.Helper()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
	id := resp.Header.Get("X-Hoop-Approval-Id")
	want := map[string]string{"X-Hoop-Denied": "review", "X-Hoop-Review-Id": id,
		"X-Hoop-Approval-Status": status, "X-Hoop-Review-Status": status,
		"Content-Type": "text/plain; charset=utf-8"}
	if retryAfter {
		want["Retry-After"] = "5"
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if id == "" {
		t.Error("no X-Hoop-Approval-Id")
	}
	if _, ok := resp.Header["Retry-After"]; ok && !retryAfter {
		t.Errorf("Retry-After present with status %q", status)
	}
	return id
}

func pendingBody(id string) string {
	return "statement held for human approval: waiting for approval; resend the identical statement once it is approved (approval " + id + ")"
}

func TestCurlHeldDeleteApprovedResendRunsOnce(t *testing.T) {
	up, rec := newUpstream(t, nil)
	w := newWorld(t, startControlPlane(t, nil), "test")
	base := w.listen(t, listener{Name: "billing-api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	send := func() (*http.Response, string) {
		return curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", base+"/v1/invoices/42?reason=dup")
	}

	resp, body := send()
	id := denialHeaders(t, resp, "PENDING", true)
	if body != pendingBody(id) {
		t.Errorf("body %q, want the spec's message %q", body, pendingBody(id))
	}

	resp, view := statusJSON(t, base+"/.well-known/hoop/approvals/"+id)
	if resp.StatusCode != 200 || view["next"] != "wait" || view["status"] != "PENDING" ||
		view["listener_name"] != "billing-api" || view["approval_rule"] != "api-deletes" || view["id"] != id {
		t.Fatalf("status path while pending: %d %v", resp.StatusCode, view)
	}
	if _, ok := view["expires_at"]; ok {
		t.Error("expires_at present although the rule sets no time limit")
	}

	w.approve(t, id)
	for _, p := range []string{"/.well-known/hoop/approvals/", "/.well-known/hoop/reviews/"} {
		_, view = statusJSON(t, base+p+id)
		if view["next"] != string(domain.NextResend) || view["status"] != "APPROVED" || view["decided_at"] == nil {
			t.Fatalf("%s after approval: %v", p, view)
		}
	}

	resp, body = send()
	if resp.StatusCode != 200 || body != "upstream ok DELETE /v1/invoices/42" {
		t.Fatalf("approved resend: %d %q", resp.StatusCode, body)
	}
	if n := rec.count("DELETE", "/v1/invoices/42"); n != 1 {
		t.Fatalf("the DELETE reached the upstream %d times, want exactly 1", n)
	}
	_, view = statusJSON(t, base+"/.well-known/hoop/approvals/"+id)
	if view["status"] != "EXECUTED" || view["next"] != "stop" {
		t.Errorf("after the resend: %v", view)
	}

	resp, _ = send()
	third := denialHeaders(t, resp, "PENDING", true)
	if third == id {
		t.Errorf("the third send reused the spent approval %s", id)
	}
	if n := rec.count("DELETE", "/v1/invoices/42"); n != 1 {
		t.Errorf("the DELETE reached the upstream %d times after the third send, want 1", n)
	}
}

func TestRetryAfterOnlyWhilePending(t *testing.T) {
	up, _ := newUpstream(t, nil)
	w := newWorld(t, startControlPlane(t, nil), "test")
	base := w.listen(t, listener{Name: "api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	url := base + "/v1/accounts/7"

	resp, _ := curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", url)
	id := denialHeaders(t, resp, "PENDING", true)
	w.reject(t, id, "not during the freeze")
	resp, body := curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", url)
	if denialHeaders(t, resp, "REJECTED", false) != id {
		t.Error("the rejected request was not reused")
	}
	want := "statement held for human approval: rejected by a person (not during the freeze); do not resend; only a person can ask again (approval " + id + ")"
	if body != want {
		t.Errorf("body %q, want %q", body, want)
	}
	_, view := statusJSON(t, base+"/.well-known/hoop/approvals/"+id)
	if view["rejection_reason"] != "not during the freeze" || view["next"] != "stop" {
		t.Errorf("rejected view %v", view)
	}
}

func TestApprovalStatusAbsentWhenTheReadAfterFilingFails(t *testing.T) {
	up, rec := newUpstream(t, nil)
	w := newWorld(t, startControlPlane(t, nil), "test")
	base := w.listen(t, listener{Name: "api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	w.breakReads(t)
	resp, body := curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", base+"/v1/accounts/8")
	id := resp.Header.Get("X-Hoop-Approval-Id")
	if resp.StatusCode != 403 || id == "" || resp.Header.Get("X-Hoop-Review-Id") != id || resp.Header.Get("X-Hoop-Denied") != "review" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	for _, k := range []string{"X-Hoop-Approval-Status", "X-Hoop-Review-Status", "Retry-After"} {
		if v, ok := resp.Header[k]; ok {
			t.Errorf("%s: %v present although the Sidecar could not read the status", k, v)
		}
	}
	if body != pendingBody(id) || rec.count("DELETE", "/v1/accounts/8") != 0 {
		t.Errorf("body %q", body)
	}
}
