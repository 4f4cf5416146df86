package httplistener_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
)

// A response of known length still streams: the client gets the headers
// and the first part of the body while the upstream holds back the rest.
func TestKnownLengthResponseArrivesAsItComes(t *testing.T) {
	release := make(chan struct{})
	up, _ := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", "20")
		_, _ = io.WriteString(w, "first part\n")
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, "the rest\n")
	})
	defer close(release)
	addr := newSidecar(true).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(hangGuard))
	_, _ = io.WriteString(c, "GET /download HTTP/1.1\r\nHost: x\r\nX-Test-Stream: 1\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContentLength != 20 {
		t.Errorf("Content-Length %d, want 20", resp.ContentLength)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "first part\n" {
		t.Fatalf("first part %q %v (the proxy held the body back)", line, err)
	}
}
