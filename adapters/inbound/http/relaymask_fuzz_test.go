package httplistener

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/hoophq/sidecar/domain/masking"
)

// FuzzMaskedResponse holds the relay's masking of a whole response
// (relaymask.go) to its promise: whatever well-framed response an upstream
// sends (a status, a Content-Type, gzip, deflate or no coding, framed by
// Content-Length, chunked or by closing), what the client gets reads with
// http.ReadResponse, its body decodes with its Content-Encoding, and a
// JSON or text body holds no entity in clear (or the answer is the
// Sidecar's 502).
func FuzzMaskedResponse(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), uint8(0), []byte(`{"contact": "alice@example.com", "n": 4111111111111111}`))
	f.Add(uint8(1), uint8(1), uint8(1), uint8(1), []byte("mail alice@example.com, card 4111 1111 1111 1111"))
	f.Add(uint8(2), uint8(2), uint8(2), uint8(2), []byte(`["4111 1111 1111 1112", {"secret": "x"}]`))
	f.Add(uint8(3), uint8(3), uint8(0), uint8(1), []byte(`{"broken": "alice@example.com`))
	f.Add(uint8(0), uint8(4), uint8(2), uint8(0), []byte("<a>bob@corp.io</a>"))
	f.Fuzz(func(t *testing.T, st, ct, ce, framing uint8, body []byte) {
		status := []int{200, 201, 404, 206, 500}[int(st)%5]
		ctype := []string{"application/json", "text/plain; charset=utf-8", "application/problem+json", "", "application/xml"}[int(ct)%5]
		coding := []string{"", "gzip", "deflate"}[int(ce)%3]
		upstream := fuzzResponse(status, ctype, coding, int(framing)%3, body)
		out := relayOnce(t, fuzzPlan(t), upstream)

		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), &http.Request{Method: "GET"})
		if err != nil {
			t.Fatalf("the client cannot read %q (from %q): %v", out, upstream, err)
		}
		got, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("the client cannot read the body of %q: %v", out, err)
		}
		if resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusPartialContent {
			return // the Sidecar's refusal, or a part it refused to read
		}
		if resp.StatusCode != status {
			t.Fatalf("status %d, the upstream's %d", resp.StatusCode, status)
		}
		doc, err := decodeBody(resp.Header.Get("Content-Encoding"), got)
		if err != nil {
			t.Fatalf("the body of %q does not decode: %v", out, err)
		}
		check := fuzzPlan(t).Field()
		if json.Valid(doc) {
			var v any
			d := json.NewDecoder(bytes.NewReader(doc))
			d.UseNumber()
			_ = d.Decode(&v)
			walkJSON(v, false, func(s string, _ bool) {
				if _, changed := check.Text(nil, []byte(s)); changed {
					t.Fatalf("an entity in %q of %q", s, doc)
				}
			})
			return
		}
		if _, changed := check.Text(nil, doc); changed {
			t.Fatalf("an entity in %q", doc)
		}
	})
}

// fuzzResponse builds an upstream's response: body encoded with coding and
// framed by Content-Length (0), chunked (1) or the connection's end (2).
func fuzzResponse(status int, ctype, coding string, framing int, body []byte) []byte {
	var b bytes.Buffer
	switch coding {
	case "gzip":
		w := gzip.NewWriter(&b)
		_, _ = w.Write(body)
		_ = w.Close()
		body = append([]byte(nil), b.Bytes()...)
	case "deflate":
		w := zlib.NewWriter(&b)
		_, _ = w.Write(body)
		_ = w.Close()
		body = append([]byte(nil), b.Bytes()...)
	}
	b.Reset()
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	if ctype != "" {
		b.WriteString("Content-Type: " + ctype + "\r\n")
	}
	if coding != "" {
		b.WriteString("Content-Encoding: " + coding + "\r\n")
	}
	switch framing {
	case 0:
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
		b.Write(body)
	case 1:
		b.WriteString("Transfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n")
		for half := len(body) / 2; len(body) > 0; half = len(body) {
			if half == 0 {
				half = len(body)
			}
			fmt.Fprintf(&b, "%x\r\n%s\r\n", half, body[:half])
			body = body[half:]
		}
		b.WriteString("0\r\nX-Sum: 1\r\n\r\n")
	default:
		b.WriteString("Connection: close\r\n\r\n")
		b.Write(body)
	}
	return b.Bytes()
}

// relayOnce relays the upstream's response bytes to a GET with masking
// plan p, as a relayed connection does, and returns what the client got.
func relayOnce(t *testing.T, p *masking.Plan, upstream []byte) []byte {
	t.Helper()
	upSrv, upCli := net.Pipe()
	cliSrv, cliCli := net.Pipe()
	go func() {
		_, _ = upSrv.Write(upstream)
		_ = upSrv.Close()
	}()
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(cliCli)
		got <- b
	}()
	h := &handler{log: slog.New(slog.DiscardHandler)}
	rc := &relayConn{h: h, set: &relaySet{conns: map[*relayConn]struct{}{}}, c: cliSrv}
	up := &upstreamConn{c: upCli, br: bufio.NewReaderSize(upCli, 4<<10)}
	rc.up = up
	m := &maskRun{plan: p}
	_, _ = rc.relayResponse(up, &requestHead{method: "GET"}, m)
	_ = cliSrv.Close()
	_ = upCli.Close()
	return <-got
}
