package httplistener_test

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/listenertest"
)

// A GET that no rule holds, relayed on a kept-alive connection by a
// listener with approval rules and no masking rule, allocates nothing per
// request once the connection carried its first: no body is read, no
// masking plan built, the decision and the upstream head are the
// connection's last ones and the response head is its upstream
// connection's last reading.
func TestRelayedGetAllocatesNothingPerRequest(t *testing.T) {
	const answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	up := cannedUpstream(t, answer)
	addr := newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: "http://" + up, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{deleteRule(t)}})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(hangGuard))
	req := []byte("GET /v1/items?limit=10 HTTP/1.1\r\nHost: api\r\nUser-Agent: test\r\n\r\n")
	buf := make([]byte, 4<<10)
	get := func() {
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		got, err := readAnswer(c, buf)
		if err != nil || !bytes.HasPrefix(got, []byte("HTTP/1.1 200 OK\r\n")) || !bytes.HasSuffix(got, []byte("{}")) {
			t.Fatalf("answer %q: %v", got, err)
		}
	}
	get()
	if n := testing.AllocsPerRun(200, get); n >= 1 {
		t.Fatalf("%.2f allocations per relayed GET, want none", n)
	}
}

// cannedUpstream answers every request head on every connection with
// answer, reading and writing without allocating; it returns its address.
func cannedUpstream(t *testing.T, answer string) string {
	t.Helper()
	return listenertest.ServeTCP(t, func(c net.Conn) {
		buf, out := make([]byte, 4<<10), []byte(answer)
		n := 0
		for {
			k, err := c.Read(buf[n:])
			if err != nil {
				return
			}
			n += k
			for {
				i := bytes.Index(buf[:n], []byte("\r\n\r\n"))
				if i < 0 {
					break
				}
				n = copy(buf, buf[i+4:n])
				if _, err := c.Write(out); err != nil {
					return
				}
			}
		}
	})
}

// readAnswer reads one response with a Content-Length body from c into buf
// and returns it.
func readAnswer(c net.Conn, buf []byte) ([]byte, error) {
	n := 0
	for {
		k, err := c.Read(buf[n:])
		if err != nil {
			return buf[:n], err
		}
		n += k
		i := bytes.Index(buf[:n], []byte("\r\n\r\n"))
		if i < 0 {
			continue
		}
		j := bytes.Index(buf[:i], []byte("Content-Length: "))
		if j < 0 {
			return buf[:n], io.ErrUnexpectedEOF
		}
		e := bytes.IndexByte(buf[j:i+2], '\r')
		length, err := strconv.Atoi(string(buf[j+len("Content-Length: ") : j+e]))
		if err != nil {
			return buf[:n], err
		}
		if n >= i+4+length {
			return buf[:n], nil
		}
	}
}
