package httplistener

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzParseResponse holds an upstream connection's remembered reading
// (responsecache.go) against parseResponseHead: for heads a and b sent one
// after the other, each to a GET or a HEAD, parseResponse gives what
// parseResponseHead gives for each alone, whether b repeats a or not.
func FuzzParseResponse(f *testing.F) {
	for _, s := range [][2]string{
		{"HTTP/1.1 200 OK\r\nContent-Length: 57\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 57\r\n\r\n"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 57\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 58\r\n\r\n"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"},
		{"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"},
		{"HTTP/1.0 200 OK\r\n\r\n", "HTTP/1.0 200 OK\r\n\r\n"},
		{"HTTP/1.1 20x OK\r\n\r\n", "HTTP/1.1 20x OK\r\n\r\n"},
	} {
		f.Add([]byte(s[0]), false, []byte(s[1]), true)
		f.Add([]byte(s[0]), false, []byte(s[1]), false)
	}
	f.Fuzz(func(t *testing.T, a []byte, aHEAD bool, b []byte, bHEAD bool) {
		u := &upstreamConn{}
		out := make([]byte, 0, 64)
		for i, h := range [][]byte{a, b, a, a, b} {
			method := "GET"
			if i%2 == 0 && aHEAD || i%2 == 1 && bHEAD {
				method = "HEAD"
			}
			got, gotErr := u.parseResponse(h, method, out)
			want, wantErr := parseResponseHead(h, method, nil)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("head %d %q (%s): error %v, parseResponseHead %v", i, h, method, gotErr, wantErr)
			}
			if gotErr != nil {
				continue
			}
			if !bytes.Equal(got.out, want.out) {
				t.Fatalf("head %d %q (%s): out %q, parseResponseHead %q", i, h, method, got.out, want.out)
			}
			buf := got.out
			got.out, want.out = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("head %d %q (%s): %+v, parseResponseHead %+v", i, h, method, got, want)
			}
			out = append(buf[:0], "scribbled over by the caller, who owns out"...)
		}
	})
}
