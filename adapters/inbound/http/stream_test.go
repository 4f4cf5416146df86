package httplistener_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// hangGuard bounds a wait that only a bug would make endless.
const hangGuard = 20 * time.Second

func TestStreamedResponsesArriveBeforeTheUpstreamEnds(t *testing.T) {
	for _, ct := range []string{"text/event-stream", "text/plain"} { // SSE; kubectl logs -f (chunked)
		t.Run(ct, func(t *testing.T) {
			release := make(chan struct{})
			up, _ := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", ct)
				_, _ = io.WriteString(w, "data: one\n\n")
				w.(http.Flusher).Flush()
				<-release
				_, _ = io.WriteString(w, "data: two\n\n")
			})
			defer close(release)
			addr := newSidecar(true).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(hangGuard))
			_, _ = io.WriteString(c, "GET /events HTTP/1.1\r\nHost: x\r\nX-Test-Stream: 1\r\n\r\n")
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			if err != nil || line != "data: one\n" {
				t.Fatalf("first event %q %v (the proxy held the stream back)", line, err)
			}
		})
	}
}

func TestStreamedRequestBodyReachesTheUpstreamAsItComes(t *testing.T) {
	gotFirst := make(chan string, 1)
	up, _ := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 5)
		if _, err := io.ReadFull(r.Body, buf); err == nil {
			gotFirst <- string(buf)
		}
		rest, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, string(buf)+string(rest))
	})
	addr := newSidecar(true).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL,
		Approvals: []domain.ApprovalRule{deleteRule(t)}})
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/upload", pr)
	req.Header.Set("X-Test-Stream", "1")
	type result struct {
		body string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- result{string(b), err}
	}()
	_, _ = io.WriteString(pw, "first")
	select {
	case s := <-gotFirst:
		if s != "first" {
			t.Fatalf("upstream read %q", s)
		}
	case <-time.After(hangGuard):
		t.Fatal("the upstream did not get the first part before the body ended: the listener buffers bodies")
	}
	_, _ = io.WriteString(pw, " second")
	_ = pw.Close()
	if r := <-done; r.err != nil || r.body != "first second" {
		t.Fatalf("%q %v", r.body, r.err)
	}
}

func TestUpgradePassesThrough(t *testing.T) {
	up, rec := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "websocket" || r.Header.Get("Connection") != "Upgrade" {
			http.Error(w, "no upgrade", 400)
			return
		}
		c, brw, _ := w.(http.Hijacker).Hijack()
		defer c.Close()
		_, _ = io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		for { // echo, byte for byte, both ways
			b, err := brw.ReadByte()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte{b})
		}
	})
	addr := newSidecar(true).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(hangGuard))
	_, _ = io.WriteString(c, "GET /api/v1/namespaces/default/pods/x/exec HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Test-Stream: 1\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("%v %v", resp, err)
	}
	for _, msg := range []string{"\x00ls -l\n", "\x01\xff\xfe binary"} {
		_, _ = io.WriteString(c, msg)
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(br, got); err != nil || string(got) != msg {
			t.Fatalf("echo %q, got %q %v", msg, got, err)
		}
	}
	if len(rec.all()) != 1 {
		t.Errorf("upstream saw %d requests", len(rec.all()))
	}
}

// writeCertFiles writes srv's certificate and key as PEM files.
func writeCertFiles(t *testing.T, srv *httptest.Server) (certFile, keyFile, caFile string) {
	t.Helper()
	dir := t.TempDir()
	cert := srv.TLS.Certificates[0]
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, caFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "ca.pem")
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]})
	for f, b := range map[string][]byte{certFile: certPEM, caFile: certPEM,
		keyFile: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key})} {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile, caFile
}

func TestTLSOnBothSides(t *testing.T) {
	rc := &recorder{}
	up := httptest.NewTLSServer(recordingHandler(rc, nil))
	t.Cleanup(up.Close)
	certFile, keyFile, caFile := writeCertFiles(t, up)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: strings.TrimPrefix(up.URL, "https://"),
		UpstreamTLS: app.TLSClient{Enabled: true, CAFile: caFile, ServerName: "example.com"},
		TLS:         app.TLSServer{CertFile: certFile, KeyFile: keyFile}})
	pool := x509.NewCertPool()
	pool.AddCert(up.Certificate())
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "example.com"},
		ForceAttemptHTTP2: true}}
	resp, err := c.Get("https://" + addr + "/v1/tls")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "upstream ok GET /v1/tls" || resp.ProtoMajor != 1 {
		t.Fatalf("%d %q %s", resp.StatusCode, b, resp.Proto)
	}
	if r := rc.all()[0]; r.Header.Get("X-Forwarded-Proto") != "https" {
		t.Errorf("X-Forwarded-Proto %q", r.Header.Get("X-Forwarded-Proto"))
	}

	// Without the CA the upstream is not trusted: 502, nothing forwarded.
	addr = sc.serve(t, app.ListenerSettings{Name: "api2", Upstream: up.URL})
	resp, body := send(t, "GET", "http://"+addr+"/v1/untrusted", "")
	if resp.StatusCode != http.StatusBadGateway || rc.count("GET", "/v1/untrusted") != 0 {
		t.Errorf("untrusted upstream: %d %q", resp.StatusCode, body)
	}
}

func TestNoTunnelsAroundTheGate(t *testing.T) {
	up, rec := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" { // an upstream that would switch to h2c
			c, _, _ := w.(http.Hijacker).Hijack()
			defer c.Close()
			_, _ = io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n")
			return
		}
		_, _ = io.WriteString(w, "plain answer")
	})
	addr := newSidecar(true).serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL})
	out := rawExchange(t, addr, "GET /v1/x HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n"+
		"GET /v1/closed HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	rs := readResponses(t, out)
	if len(rs) != 2 || rs[0].StatusCode != 200 {
		t.Fatalf("h2c offer: want two plain HTTP/1.1 answers, got %q", out)
	}
	if r := rec.all()[0]; r.Header.Get("Upgrade") != "" || r.Header.Get("Http2-Settings") != "" {
		t.Errorf("the h2c offer reached the upstream: %v", r.Header)
	}
	out = rawExchange(t, addr, "CONNECT upstream.internal:443 HTTP/1.1\r\nHost: upstream.internal:443\r\n\r\n")
	if rs := readResponses(t, out); len(rs) != 1 || rs[0].StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("CONNECT: %q", out)
	}
	if n := len(rec.all()); n != 2 {
		t.Errorf("upstream saw %d requests, want 2", n)
	}
}
