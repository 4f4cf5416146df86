package httplistener_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// rawExchange writes raw to a new connection to addr, then reads until the
// listener closes it, and returns what came back.
func rawExchange(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second)) // a hang fails instead of blocking the suite
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read: %v (got %q)", err, b)
	}
	return string(b)
}

// readResponses parses every HTTP/1.1 response in s.
func readResponses(t *testing.T, s string) []*http.Response {
	t.Helper()
	br := bufio.NewReader(strings.NewReader(s))
	var out []*http.Response
	for {
		if _, err := br.Peek(1); err != nil {
			return out
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("parse response %d: %v in %q", len(out)+1, err, s)
		}
		_, _ = io.ReadAll(resp.Body)
		out = append(out, resp)
	}
}

func TestStatusPathBehindAnotherRequestClosesUnanswered(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{deleteRule(t)}})
	resp, _ := send(t, "DELETE", "http://"+addr+"/v1/z", "")
	id := resp.Header.Get("X-Hoop-Approval-Id")

	out := rawExchange(t, addr, "GET /v1/first HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /.well-known/hoop/approvals/"+id+" HTTP/1.1\r\nHost: x\r\n\r\n")
	rs := readResponses(t, out)
	if len(rs) != 1 || rs[0].StatusCode != 200 || rs[0].ContentLength != int64(len("upstream ok GET /v1/first")) {
		t.Fatalf("want only the upstream's answer to the first request, got %q", out)
	}
	if strings.Contains(out, id) || strings.Contains(out, "PENDING") {
		t.Errorf("the status path was answered behind another request: %q", out)
	}

	// As the first request it answers, then closes.
	out = rawExchange(t, addr, "GET /.well-known/hoop/approvals/"+id+" HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /v1/second HTTP/1.1\r\nHost: x\r\n\r\n")
	rs = readResponses(t, out)
	if len(rs) != 1 || rs[0].StatusCode != 200 || !rs[0].Close || !strings.Contains(out, `"next": "wait"`) {
		t.Fatalf("status path first: %q", out)
	}
	if rec.count("GET", "/v1/second") != 0 {
		t.Error("the request behind the status path was forwarded")
	}
	if rec.count("GET", "/v1/first") != 1 {
		t.Error("the first request did not reach the upstream")
	}
	rec.assertNoReserved(t)
}

func TestGoClientResendsStatusPathOnANewConnection(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	c := &http.Client{} // keep-alive: the second request goes on the same connection first
	for _, p := range []string{"/v1/warm", "/.well-known/hoop/approvals/unknown"} {
		resp, err := c.Get("http://" + addr + p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if p != "/v1/warm" && resp.StatusCode != 404 {
			t.Errorf("%s: %d", p, resp.StatusCode)
		}
	}
	rec.assertNoReserved(t)
}

func TestNothingUnderTheReservedPrefixIsForwarded(t *testing.T) {
	up, rec := newUpstream(t, nil)
	for _, withCP := range []bool{true, false} {
		addr := newSidecar(withCP).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
		paths := []string{"/.well-known/hoop/", "/.well-known/hoop", "/.well-known/hoop/x/y",
			"/.well-known/hoop/approvals/", "/.well-known/hoop/approvals/a/b", "/.well-known/hoop/reviews/a?b=c",
			"/.WELL-KNOWN/Hoop/approvals/a", "//.well-known//hoop/a", "/x/../.well-known/hoop/a",
			"/%2ewell-known/hoop/a", "/.well-known%2fhoop/a", "/%252ewell-known/hoop/a", "/.well-known;v=1/hoop/a",
			`/.well-known\hoop\a`, "/./.well-known/hoop/a"}
		for _, p := range paths {
			for _, m := range []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
				out := rawExchange(t, addr, fmt.Sprintf("%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", m, p))
				if !strings.HasPrefix(out, "HTTP/1.1 4") && !strings.HasPrefix(out, "HTTP/1.1 5") {
					t.Errorf("%s %s answered %q", m, p, out)
				}
			}
			// Absolute-form target, and behind another request.
			_ = rawExchange(t, addr, "GET http://x"+p+" HTTP/1.1\r\nHost: x\r\n\r\n")
			_ = rawExchange(t, addr, "GET /v1/ok HTTP/1.1\r\nHost: x\r\n\r\nPOST "+p+" HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
		}
	}
	rec.assertNoReserved(t)
	if rec.count("GET", "/v1/ok") == 0 {
		t.Error("the upstream got nothing at all: the test would not see a leak")
	}
}

func TestReservedPrefixIsNotServedWithoutCP(t *testing.T) {
	up, _ := newUpstream(t, nil)
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	resp, body := send(t, "GET", "http://"+addr+"/.well-known/hoop/other", "")
	statusChecks(t, resp, 404)
	if !strings.Contains(jsonObject(t, body)["message"].(string), "belongs to the Sidecar") {
		t.Errorf("%s", body)
	}
}

// issueTargets are the targets that reached the upstream before (issue 10,
// point 3), with more spellings of the same kinds; the Sidecar answers each
// with 400, since each reads into the prefix only the way some server may
// read it.
var issueTargets = []string{
	"/.well-known/hoop/../x", "/.well-known/hoop/..", "/.well-known/hoop/x/../../y",
	"/.well-known/hoop./x", "/.well-known/hoop%2e/x", "/.well-known/hoop%20/x",
	"http://x/.well-known/hoop/..", "/.well-known/hoop;v=1/x", "/.well-known/hoop%252e/x", "/%2Ewell-known/hoop/x",
	"/%c0%aewell-known/hoop/x", "//.well-known//hoop/", "/.well-known/hoop%3f/x", "/.well-known/hoop%23/x",
	"/.well-known/hoop%00/x", `/.well-known\hoop\x`, "/.WELL-KNOWN/HOOP/approvals/x", "/.well-known/a%2fb/../hoop",
	"/.well-known/hoop.%20.%20./x", "/%ef%bc%8ewell-known/hoop/x",
}

func TestLenientSpellingsOfThePrefixAreAnsweredByTheSidecar(t *testing.T) {
	up, rec := newUpstream(t, nil)
	addr := newSidecar(true).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	for _, target := range issueTargets {
		for _, m := range []string{"GET", "HEAD", "DELETE"} {
			out := rawExchange(t, addr, m+" "+target+" HTTP/1.1\r\nHost: x\r\n\r\n")
			rs := readResponsesTo(t, out, m)
			if len(rs) != 1 || rs[0].resp.StatusCode != 400 || !rs[0].resp.Close ||
				rs[0].resp.Header.Get("Cache-Control") != "no-store" || rs[0].resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s %s: want the Sidecar's 400, got %q", m, target, out)
				continue
			}
			if m != "HEAD" && !strings.Contains(jsonObject(t, rs[0].body)["message"].(string), "belongs to the Sidecar") {
				t.Errorf("%s %s: %s", m, target, rs[0].body)
			}
		}
		// Behind another request on the connection: closed unanswered.
		out := rawExchange(t, addr, "GET /v1/warm HTTP/1.1\r\nHost: x\r\n\r\nGET "+target+" HTTP/1.1\r\nHost: x\r\n\r\n")
		if rs := readResponses(t, out); len(rs) != 1 || rs[0].StatusCode != 200 {
			t.Errorf("%s behind another request: %q", target, out)
		}
	}
	if rec.count("GET", "/v1/warm") != len(issueTargets) {
		t.Errorf("the warm-up requests did not all reach the upstream: the test could not see a leak")
	}
	rec.assertNoReserved(t)
}

func TestPlainPathsUnderThePrefixStill404(t *testing.T) {
	up, rec := newUpstream(t, nil)
	addr := newSidecar(true).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	for _, p := range []string{"/.well-known/hoop", "/.well-known/hoop/", "/.well-known/hoop/other", "/.well-known/hoop/approvals/a/b"} {
		resp, body := send(t, "POST", "http://"+addr+p, "")
		statusChecks(t, resp, 404)
		if !strings.Contains(jsonObject(t, body)["message"].(string), "belongs to the Sidecar") {
			t.Errorf("%s: %s", p, body)
		}
	}
	rec.assertNoReserved(t)
}

// An upstream URL with a path is put in front of every forwarded path, so
// that joined path is read too.
func TestUpstreamPathJoinedWithTheTargetIsRead(t *testing.T) {
	up, rec := newUpstream(t, nil)
	addr := newSidecar(true).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL + "/.well-known"})
	resp, _ := send(t, "GET", "http://"+addr+"/hoop/x", "")
	statusChecks(t, resp, 400)
	if resp, _ := send(t, "GET", "http://"+addr+"/other", ""); resp.StatusCode != 200 {
		t.Errorf("GET /other: %d", resp.StatusCode)
	}
	if got := rec.all(); len(got) != 1 || got[0].Path != "/.well-known/other" {
		t.Errorf("upstream saw %+v", got)
	}
}

type answer struct {
	resp *http.Response
	body string
}

// readResponsesTo parses the answers in s to requests of method m (a HEAD
// answer has no body).
func readResponsesTo(t *testing.T, s, m string) []answer {
	t.Helper()
	br := bufio.NewReader(strings.NewReader(s))
	var out []answer
	for {
		if _, err := br.Peek(1); err != nil {
			return out
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: m})
		if err != nil {
			t.Fatalf("parse response %d: %v in %q", len(out)+1, err, s)
		}
		b, _ := io.ReadAll(resp.Body)
		out = append(out, answer{resp, string(b)})
	}
}
