package httpconformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// errorMessage checks a status path error answer and returns its message.
func errorMessage(t *testing.T, resp *http.Response, body string, code int) string {
	t.Helper()
	if resp.StatusCode != code {
		t.Errorf("status %d, want %d (body %q)", resp.StatusCode, code, body)
	}
	if resp.Header.Get("Cache-Control") != "no-store" || !resp.Close || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v (close %v)", resp.Header, resp.Close)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(body), &m); err != nil || m["message"] == "" || len(m) != 1 {
		t.Errorf("error body %q is not {\"message\": …}", body)
	}
	return m["message"]
}

func TestStatusPathCodes(t *testing.T) {
	up, rec := newUpstream(t, nil)
	cp := startControlPlane(t, nil)
	w := newWorld(t, cp, "test")
	base := w.listen(t, listener{Name: "billing-api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	other := w.listen(t, listener{Name: "ledger-api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	// Another Sidecar on the same Control Plane, with a listener of the same name.
	otherSidecar := newWorld(t, cp, "other").listen(t, listener{Name: "billing-api", Upstream: up.URL})
	resp, _ := curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", base+"/v1/x")
	id := resp.Header.Get("X-Hoop-Approval-Id")

	t.Run("200 GET and HEAD", func(t *testing.T) {
		resp, view := statusJSON(t, base+"/.well-known/hoop/approvals/"+id)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" || !resp.Close || view["id"] != id {
			t.Errorf("%d %v %v", resp.StatusCode, resp.Header, view)
		}
		resp, body := curl(t, "-I", base+"/.well-known/hoop/reviews/"+id)
		if resp.StatusCode != 200 || body != "" || resp.Header.Get("Cache-Control") != "no-store" || !resp.Close {
			t.Errorf("HEAD: %d %v %q", resp.StatusCode, resp.Header, body)
		}
	})
	t.Run("404 wrong id, other listener, other Sidecar", func(t *testing.T) {
		for _, u := range []string{base + "/.well-known/hoop/approvals/no-such-id",
			base + "/.well-known/hoop/approvals/00000000-0000-4000-8000-000000000000",
			other + "/.well-known/hoop/approvals/" + id, other + "/.well-known/hoop/reviews/" + id,
			otherSidecar + "/.well-known/hoop/approvals/" + id} {
			resp, body := curl(t, u)
			if msg := errorMessage(t, resp, body, 404); msg != "approval request not found on this listener" {
				t.Errorf("%s: %q", u, msg)
			}
		}
	})
	t.Run("405 other methods", func(t *testing.T) {
		for _, m := range []string{"POST", "PUT", "DELETE"} {
			resp, body := curl(t, "-X", m, base+"/.well-known/hoop/approvals/"+id)
			errorMessage(t, resp, body, 405)
			if resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s: Allow %q", m, resp.Header.Get("Allow"))
			}
		}
	})
	t.Run("502 Control Plane stopped mid-test", func(t *testing.T) {
		resp, _ := statusJSON(t, base+"/.well-known/hoop/approvals/"+id)
		if resp.StatusCode != 200 {
			t.Fatalf("before the stop: %d", resp.StatusCode)
		}
		w.stopControlPlane(t)
		resp, body := curl(t, base+"/.well-known/hoop/approvals/"+id)
		if msg := errorMessage(t, resp, body, 502); !strings.Contains(msg, "a person checks the approval request in the Control Plane") {
			t.Errorf("502 message %q", msg)
		}
	})
	if n := len(rec.all()); n != 0 {
		t.Errorf("the upstream received %d requests", n)
	}
}

func TestStatusPathControlPlaneOlder502(t *testing.T) {
	up, _ := newUpstream(t, nil)
	zero := 0 // the Control Plane leaves X-Hoop-Api-Version out: older than the Sidecar
	w := newWorld(t, startControlPlane(t, &zero), "test")
	base := w.listen(t, listener{Name: "api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	resp, body := curl(t, base+"/.well-known/hoop/approvals/some-id")
	if msg := errorMessage(t, resp, body, 502); !strings.Contains(msg, "older than this Sidecar") {
		t.Errorf("502 message %q", msg)
	}
}

func TestStatusPathWithoutControlPlane503(t *testing.T) {
	up, _ := newUpstream(t, nil)
	w := newWorld(t, nil, "test")
	base := w.listen(t, listener{Name: "api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	for _, p := range []string{"/.well-known/hoop/approvals/abc", "/.well-known/hoop/reviews/abc"} {
		resp, body := curl(t, base+p)
		if msg := errorMessage(t, resp, body, 503); !strings.Contains(msg, "no Control Plane") {
			t.Errorf("%s: %q", p, msg)
		}
	}
	// Statements that need no approval keep flowing.
	if resp, body := curl(t, base+"/v1/ok"); resp.StatusCode != 200 {
		t.Errorf("GET through a Sidecar without Control Plane: %d %q", resp.StatusCode, body)
	}
}

// raw writes s on a new TCP connection and reads until the listener closes it.
func raw(t *testing.T, addr, s string) string {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(addr, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a listener that never closes fails here
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("the listener did not close the connection: %v (read %q)", err, out)
	}
	return string(out)
}

func responses(t *testing.T, s string) []*http.Response {
	t.Helper()
	br := bufio.NewReader(strings.NewReader(s))
	var out []*http.Response
	for {
		if _, err := br.Peek(1); err != nil {
			return out
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("answer %d unreadable: %v in %q", len(out)+1, err, s)
		}
		_, _ = io.ReadAll(resp.Body)
		out = append(out, resp)
	}
}

func TestRawTCPStatusPathOnlyAsFirstRequest(t *testing.T) {
	up, rec := newUpstream(t, nil)
	w := newWorld(t, startControlPlane(t, nil), "test")
	base := w.listen(t, listener{Name: "api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	resp, _ := curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", base+"/v1/y")
	id := resp.Header.Get("X-Hoop-Approval-Id")

	t.Run("second of two pipelined requests: closed unanswered", func(t *testing.T) {
		out := raw(t, base, "GET /v1/first HTTP/1.1\r\nHost: api\r\n\r\n"+
			"GET /.well-known/hoop/approvals/"+id+" HTTP/1.1\r\nHost: api\r\n\r\n")
		rs := responses(t, out)
		if len(rs) != 1 || rs[0].StatusCode != 200 {
			t.Fatalf("want exactly the first request's answer, got %d answers: %q", len(rs), out)
		}
		if strings.Contains(out, id) {
			t.Errorf("the status path was answered: %q", out)
		}
		if rec.count("GET", "/v1/first") != 1 {
			t.Error("the first request did not reach the upstream")
		}
	})
	t.Run("first request: answered, then closed", func(t *testing.T) {
		out := raw(t, base, "GET /.well-known/hoop/approvals/"+id+" HTTP/1.1\r\nHost: api\r\n\r\n"+
			"GET /v1/behind HTTP/1.1\r\nHost: api\r\n\r\n")
		rs := responses(t, out)
		if len(rs) != 1 || rs[0].StatusCode != 200 || !rs[0].Close || !strings.Contains(out, `"next": "wait"`) {
			t.Fatalf("got %q", out)
		}
		if rec.count("GET", "/v1/behind") != 0 {
			t.Error("the request behind the status path was forwarded")
		}
	})
}

func TestNothingUnderWellKnownHoopReachesTheUpstream(t *testing.T) {
	up, rec := newUpstream(t, nil)
	w := newWorld(t, startControlPlane(t, nil), "test")
	base := w.listen(t, listener{Name: "api", Upstream: up.URL, Rules: []rule{heldDeletes}})
	noCP := newWorld(t, nil, "test").listen(t, listener{Name: "api", Upstream: up.URL})
	subpaths := []string{"", "approvals", "approvals/", "approvals/x/y", "reviews/x?y=1", "other", "a/b/c",
		"../hoop/approvals/x", "%2e%2e/hoop/x"}
	methods := []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"}
	for _, b := range []string{base, noCP} {
		for _, sp := range subpaths {
			for _, m := range methods {
				args := []string{"--path-as-is", "-X", m}
				if m == "HEAD" {
					args = []string{"--path-as-is", "-I"} // curl -X HEAD would wait for a body
				}
				resp, _ := curl(t, append(args, b+"/.well-known/hoop/"+sp)...)
				if resp.StatusCode < 400 {
					t.Errorf("%s /.well-known/hoop/%s: %d", m, sp, resp.StatusCode)
				}
				// Behind another request on the same connection, too.
				_ = raw(t, b, fmt.Sprintf("GET /v1/warm HTTP/1.1\r\nHost: api\r\n\r\n%s /.well-known/hoop/%s HTTP/1.1\r\nHost: api\r\nContent-Length: 0\r\n\r\n", m, sp))
			}
		}
		for _, p := range []string{"/.well-known/hoop", "/.WELL-KNOWN/HOOP/x", "//.well-known/hoop/x", "/v1/../.well-known/hoop/x", "/%2ewell-known/hoop/x"} {
			resp, _ := curl(t, "--path-as-is", b+p)
			if resp.StatusCode < 400 {
				t.Errorf("GET %s: %d", p, resp.StatusCode)
			}
		}
	}
	if rec.count("GET", "/v1/warm") == 0 {
		t.Fatal("the upstream received nothing: this test could not see a leak")
	}
	for _, s := range rec.all() {
		if s.Path != "/v1/warm" {
			t.Errorf("the upstream received %s %s", s.Method, s.Path)
		}
	}
}
