package httplistener_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/listenertest"
)

// scriptedUpstream answers every request read on a connection with answer, then
// closes the connection when closeAfter. It returns its address.
func scriptedUpstream(t *testing.T, answer string, closeAfter bool) string {
	t.Helper()
	return listenertest.ServeTCP(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, req.Body)
			if _, err := io.WriteString(c, answer); err != nil || closeAfter {
				return
			}
		}
	})
}

// exchange writes raw on one new connection to addr and returns what comes
// back until the listener closes it or hangGuard passes.
func exchange(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(hangGuard))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

func TestRelayPassesChunkedBodiesWithTheirTrailers(t *testing.T) {
	up, _ := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Sum")
		_, _ = io.WriteString(w, "one ")
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, "two")
		w.Header().Set("X-Sum", "2")
	})
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	c := &http.Client{}
	defer c.CloseIdleConnections()
	for range 2 { // the second over the same kept-alive connections
		resp, err := c.Get("http://" + addr + "/x")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "one two" || resp.Trailer.Get("X-Sum") != "2" || resp.TransferEncoding[0] != "chunked" {
			t.Fatalf("chunked answer: %q trailer %v te %v", b, resp.Trailer, resp.TransferEncoding)
		}
	}
}

func TestRelayEndsACloseDelimitedAnswerWithTheConnection(t *testing.T) {
	up := scriptedUpstream(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nuntil the end", true)
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: "http://" + up})
	got := exchange(t, addr, "GET /x HTTP/1.1\r\nHost: api\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(got)), nil)
	if err != nil {
		t.Fatalf("%q: %v", got, err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "until the end" || !resp.Close {
		t.Fatalf("close-delimited answer: %q", got)
	}
}

func TestRelaySendsAgainWhenTheUpstreamClosedAKeptAliveConnection(t *testing.T) {
	// The upstream closes each connection after its answer without saying
	// so: the next request on the pinned connection finds it closed.
	up := scriptedUpstream(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true)
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: "http://" + up})
	keptAlive(t, addr, func(int) {
		time.Sleep(20 * time.Millisecond) // let the upstream's close arrive first (the test passes either way)
	},
		"GET /a HTTP/1.1\r\nHost: api\r\n\r\n",
		"GET /b HTTP/1.1\r\nHost: api\r\n\r\n",
		"POST /c HTTP/1.1\r\nHost: api\r\nContent-Length: 3\r\n\r\nabc", // never sent twice: checked before
		"HEAD /d HTTP/1.1\r\nHost: api\r\n\r\n",
	)
}

// keptAlive sends reqs one after the other on one connection to addr,
// calling before(i) ahead of request i, and fails t unless each is
// answered 200 "ok" (HEAD: no body) with the connection kept alive.
func keptAlive(t *testing.T, addr string, before func(i int), reqs ...string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(hangGuard))
	br := bufio.NewReader(c)
	for i, req := range reqs {
		before(i)
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		method := strings.Fields(req)[0]
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := "ok"
		if method == "HEAD" {
			want = ""
		}
		if resp.StatusCode != 200 || string(b) != want || resp.Close {
			t.Fatalf("request %d: %d %q close=%v", i, resp.StatusCode, b, resp.Close)
		}
	}
}

func TestRelayAnswers502WhenTheUpstreamIsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: "http://" + dead})
	resp, body := send(t, "GET", "http://"+addr+"/x", "")
	if resp.StatusCode != 502 || !strings.Contains(body, "did not answer") {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}

// Heads the relay does not forward itself are answered exactly as a plain
// net/http server answers them: smuggling attempts (Content-Length with
// Transfer-Encoding, two lengths), obs-fold, bare LF line ends, HTTP/1.0.
func TestRelayLeavesOddHeadsToNetHTTP(t *testing.T) {
	up, rec := newUpstream(t, nil)
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	oracle := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	}))
	defer oracle.Close()
	for _, raw := range []string{
		"POST /a HTTP/1.1\r\nHost: api\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: api\r\n\r\n",
		"POST /a HTTP/1.1\r\nHost: api\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
		"GET /a HTTP/1.1\r\nHost: api\r\nX-A: b\r\n c\r\n\r\n",
		"GET /a HTTP/1.1\nHost: api\n\n",
		"GET /a HTTP/1.1\r\nHost: api\r\nTransfer-Encoding: identity\r\n\r\n",
		"GET /a HTTP/1.0\r\n\r\n",
		"GET /a HTTP/1.1\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"GET /a\x00 HTTP/1.1\r\nHost: api\r\n\r\n",
	} {
		got := statusLine(exchange(t, addr, raw+"GET /next HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n"))
		want := statusLine(exchange(t, oracle.Listener.Addr().String(), raw+"GET /next HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n"))
		if got != want {
			t.Errorf("%q: listener %q, net/http %q", raw, got, want)
		}
	}
	// Transfer-Encoding wins over Content-Length (RFC 9112 §6.3), as in
	// net/http: "/smuggled" is the next request on that connection and the
	// upstream reads it as such, never inside a body.
	for _, r := range rec.all() {
		if r.Path == "/a" && r.Method == "POST" && len(r.Body) != 0 {
			t.Errorf("POST /a reached the upstream with body %q", r.Body)
		}
	}
}

// statusLine returns the first line of an answer.
func statusLine(s string) string {
	l, _, _ := strings.Cut(s, "\r\n")
	return l
}

// A client that hangs up while the upstream has not answered yet closes
// the upstream connection, as net/http's reverse proxy cancels the
// upstream request: the upstream's request context ends.
func TestRelayClosesTheUpstreamWhenTheClientLeaves(t *testing.T) {
	arrived, canceled := make(chan struct{}), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-r.Context().Done():
			close(canceled)
		case <-time.After(hangGuard):
		}
	}))
	defer up.Close()
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: api\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-arrived
	c.Close()
	select {
	case <-canceled:
	case <-time.After(hangGuard):
		t.Fatal("the upstream request went on after the client left")
	}
}

// The relay's read deadlines stay set between requests (deadline.go,
// readDeadline.roll): an answer slower than the client check, and a pause longer than it before a request that must go
// over a connection known to be open, still use the one pinned upstream
// connection and are answered.
func TestRelayKeepsItsUpstreamConnectionAcrossSlowAnswersAndPauses(t *testing.T) {
	var accepted atomic.Int32
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/slow" {
			time.Sleep(1300 * time.Millisecond) // longer than the relay's client check (1 s)
		}
		_, _ = io.WriteString(w, "ok")
	}))
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}
	up.Start()
	defer up.Close()
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	keptAlive(t, addr, func(i int) {
		if i == 1 {
			time.Sleep(1200 * time.Millisecond) // the upstream read deadline passes meanwhile
		}
	},
		"GET /slow HTTP/1.1\r\nHost: api\r\n\r\n",
		"POST /after-a-pause HTTP/1.1\r\nHost: api\r\nContent-Length: 3\r\n\r\nabc",
		"GET /next HTTP/1.1\r\nHost: api\r\n\r\n",
	)
	if n := accepted.Load(); n != 1 {
		t.Fatalf("the upstream accepted %d connections, want the 1 pinned one", n)
	}
}
