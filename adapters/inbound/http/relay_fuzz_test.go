package httplistener

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// FuzzRequestHead holds the relay's request head reading (head.go) against
// net/http's: whatever head the relay forwards itself, http.ReadRequest
// reads too, with the same method, target, Host and body length and no
// Transfer-Encoding. Anything else the relay must leave to net/http.
func FuzzRequestHead(f *testing.F) {
	for _, s := range []string{
		"GET /v1/items?limit=10 HTTP/1.1\r\nHost: api\r\n\r\n",
		"POST /a HTTP/1.1\r\nHost: api\r\nContent-Length: 5\r\n\r\nhello",
		"POST /a HTTP/1.1\r\nHost: api\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET /a HTTP/1.1\nHost: api\n\n",
		"GET /a HTTP/1.1\r\nHost: api\r\nX-A: b\r\n c\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: api\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: api\r\nConnection: close, X-Drop\r\nX-Drop: 1\r\n\r\n",
		"GET http://api/a HTTP/1.1\r\nHost: api\r\n\r\n",
		"GET /a HTTP/1.0\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: api\r\nContent-Length: +5\r\n\r\n",
		"GET /%zz HTTP/1.1\r\nHost: api\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, bad := headEnd(b)
		if bad || n == 0 {
			return
		}
		rh, ok := parseRequestHead(string(b[:n]))
		if !ok {
			return
		}
		r, ok := rh.request("192.0.2.1:1234", nil)
		if !ok {
			return
		}
		want, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			t.Fatalf("the relay reads %q, net/http refuses it: %v", b[:n], err)
		}
		if want.Method != rh.method || want.RequestURI != rh.target || want.Host != rh.host ||
			want.ContentLength != rh.contentLength || len(want.TransferEncoding) > 0 ||
			want.URL.EscapedPath() != r.URL.EscapedPath() || want.URL.RawQuery != r.URL.RawQuery {
			t.Fatalf("%q: relay %q %q %q %d, net/http %q %q %q %d %v", b[:n], rh.method, rh.target, rh.host,
				rh.contentLength, want.Method, want.RequestURI, want.Host, want.ContentLength, want.TransferEncoding)
		}
		if want.Close != rh.close {
			t.Fatalf("%q: Connection: close read as %v, net/http %v", b[:n], rh.close, want.Close)
		}
	})
}

// FuzzResponseHead holds the relay's response framing (response.go)
// against http.ReadResponse: when both read a head, they agree on the
// status and on how the body ends, and the head the client gets carries no
// hop-by-hop field.
func FuzzResponseHead(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 57\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 3\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\n",
		"HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
		"HTTP/1.1 200 OK\r\nConnection: close, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\n\r\n",
		"HTTP/1.1 200 OK\nContent-Length: 2\n\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, head bool) {
		n := responseHeadEnd(b)
		if n == 0 {
			return
		}
		method := "GET"
		if head {
			method = "HEAD"
		}
		rh, err := parseResponseHead(b[:n], method, nil)
		if err != nil {
			return
		}
		want, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(b[:n])), &http.Request{Method: method})
		if err != nil {
			return // net/http is stricter on some heads; the relay never reads more than it frames
		}
		if want.StatusCode != rh.status {
			t.Fatalf("%q: status %d, net/http %d", b[:n], rh.status, want.StatusCode)
		}
		switch rh.framing {
		case framingLength:
			if want.ContentLength != rh.length {
				t.Fatalf("%q: length %d, net/http %d", b[:n], rh.length, want.ContentLength)
			}
		case framingChunked:
			if len(want.TransferEncoding) == 0 || want.TransferEncoding[0] != "chunked" {
				t.Fatalf("%q: chunked, net/http %v", b[:n], want.TransferEncoding)
			}
		case framingNone:
			if want.ContentLength > 0 && rh.status >= 200 && rh.status != 204 && rh.status != 304 && !head {
				t.Fatalf("%q: no body, net/http %d bytes", b[:n], want.ContentLength)
			}
		}
		out, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append(rh.out, "\r\n"...))), nil)
		if err != nil {
			t.Fatalf("the head sent to the client %q does not read: %v", rh.out, err)
		}
		for _, h := range []string{"Connection", "Keep-Alive", "Proxy-Connection", "Upgrade"} {
			if out.Header.Get(h) != "" {
				t.Fatalf("%q: hop-by-hop %s passed on in %q", b[:n], h, rh.out)
			}
		}
	})
}

// FuzzChunkSize holds chunkSize against strconv: a size line is hex digits
// (extensions after ';' ignored), nothing else.
func FuzzChunkSize(f *testing.F) {
	for _, s := range []string{"0", "1a", "FFFF;ext=1", "", "-1", "+1", " 1", "1 ", "0x10", "fffffffffffffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := chunkSize([]byte(s))
		digits, _, _ := strings.Cut(s, ";")
		digits = strings.TrimRight(digits, " \t")
		want, werr := strconv.ParseInt(digits, 16, 64)
		valid := werr == nil && digits != "" && digits[0] != '+' && digits[0] != '-' && len(digits) <= 15
		if valid != (err == nil) || valid && n != want {
			t.Fatalf("chunkSize(%q) = %d, %v; strconv %d, %v", s, n, err, want, werr)
		}
	})
}
