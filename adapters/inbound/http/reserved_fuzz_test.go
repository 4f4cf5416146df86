package httplistener_test

import (
	"bufio"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"testing"

	httplistener "github.com/hoophq/sidecar/adapters/inbound/http"
	"github.com/hoophq/sidecar/app"
)

// rawUpstream is an upstream that records the request target of every
// request line it reads, byte for byte, before any parsing could refuse it.
type rawUpstream struct {
	addr string
	mu   sync.Mutex
	got  []string
}

func newRawUpstream(tb testing.TB) *rawUpstream {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ln.Close() })
	u := &rawUpstream{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go u.serve(c)
		}
	}()
	return u
}

// serve records one request line and its headers, answers 200 and closes.
func (u *rawUpstream) serve(c net.Conn) {
	defer c.Close()
	tp := textproto.NewReader(bufio.NewReader(c))
	line, err := tp.ReadLine()
	if err != nil {
		return
	}
	_, rest, _ := strings.Cut(line, " ")
	target := rest
	if i := strings.LastIndexByte(rest, ' '); i >= 0 {
		target = rest[:i]
	}
	u.mu.Lock()
	u.got = append(u.got, target)
	u.mu.Unlock()
	_, _ = tp.ReadMIMEHeader()
	_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
}

// take returns and forgets the targets recorded so far.
func (u *rawUpstream) take() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	got := u.got
	u.got = nil
	return got
}

// FuzzReservedPrefix holds the reservation's invariant: for any request
// target, either the Sidecar answers it, or no reading of it (nor of what
// the upstream received) lies under /.well-known/hoop/. The readings come
// from OracleInPrefix, a brute-force restatement of docs/http-listener.md
// that shares no code with the listener. The listener is the real one on a
// TCP port, without a Control Plane, in front of an upstream at "/" or at
// "/b/" (based); behind puts the target second on its connection.
func FuzzReservedPrefix(f *testing.F) {
	up := newRawUpstream(f)
	sc := newSidecar(false)
	addrs := map[bool]string{
		false: sc.serve(f, app.ListenerSettings{Name: "api", Upstream: "http://" + up.addr}),
		true:  sc.serve(f, app.ListenerSettings{Name: "based", Upstream: "http://" + up.addr + "/b/"}),
	}
	f.Fuzz(func(t *testing.T, target string, based, behind bool) {
		if len(target) > httplistener.MaxFuzzTarget || strings.ContainsAny(target, "\r\n") {
			t.Skip("not one request line")
		}
		req := "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
		if behind {
			req = "GET /warm HTTP/1.1\r\nHost: x\r\n\r\n" + req
		}
		_ = up.take()
		out := rawExchange(t, addrs[based], req)
		got := up.take()
		if behind && len(got) > 0 {
			got = got[1:] // the warm-up request
		}
		in, settled := httplistener.OracleInPrefix(target)
		if (in || !settled) && len(got) > 0 {
			t.Fatalf("target %q (in the prefix %v, settled %v) was forwarded as %q", target, in, settled, got)
		}
		for _, g := range got {
			if gin, gsettled := httplistener.OracleInPrefix(g); gin || !gsettled {
				t.Fatalf("target %q reached the upstream as %q, which reads into the prefix", target, g)
			}
		}
		if (in || !settled) && !behind {
			rs := readResponses(t, out)
			if len(rs) != 1 || rs[0].StatusCode < 400 || !rs[0].Close {
				t.Fatalf("target %q in the prefix: want one error answer that closes, got %q", target, out)
			}
			if rs[0].StatusCode != http.StatusBadRequest && rs[0].Header.Get("Cache-Control") != "no-store" {
				t.Errorf("target %q: the Sidecar's answer lacks Cache-Control: no-store: %q", target, out)
			}
		}
	})
}
