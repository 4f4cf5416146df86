package httplistener

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// bodyFraming is how the end of a response body is found (RFC 9112 §6.3).
type bodyFraming uint8

const (
	// framingNone: no body (1xx, 204, 304, an answer to HEAD).
	framingNone bodyFraming = iota
	// framingLength: Content-Length bytes.
	framingLength
	// framingChunked: the chunked transfer coding, trailers included.
	framingChunked
	// framingClose: until the upstream closes the connection.
	framingClose
)

// responseHead is what the relay reads of an upstream's response head: only
// what it needs to frame the body and to pass the head on.
type responseHead struct {
	status int
	// out is the head as the client gets it: an HTTP/1.1 status line and
	// the upstream's fields without the hop-by-hop ones (RFC 9110 §7.6.1),
	// without its final empty line (the relay may add Connection: close).
	out     []byte
	framing bodyFraming
	length  int64
	// reusable: the upstream connection can carry the next request.
	reusable bool
}

var errBadResponse = errors.New("malformed response head from the upstream")

// responseHeadEnd is headEnd for a response: lines may end in a bare LF
// (Go's client reads those too); the result is the length of the head or 0
// when b does not hold all of it yet.
func responseHeadEnd(b []byte) int {
	start := 0
	for {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			return 0
		}
		i += start
		line := b[start:i]
		if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
			if start > 0 {
				return i + 1
			}
		}
		start = i + 1
	}
}

// parseResponseHead reads the response head h (responseHeadEnd's bytes) to
// a request with method method, appending the head the client gets to
// out[:0].
func parseResponseHead(h []byte, method string, out []byte) (responseHead, error) {
	rh := responseHead{out: out[:0], length: -1}
	line, rest := nextLine(h)
	proto, st, _ := bytes.Cut(line, []byte(" "))
	code, reason, _ := bytes.Cut(st, []byte(" "))
	if string(proto) != "HTTP/1.1" && string(proto) != "HTTP/1.0" || len(code) != 3 {
		return rh, errBadResponse
	}
	n := 0
	for _, c := range code {
		if c < '0' || c > '9' {
			return rh, errBadResponse
		}
		n = n*10 + int(c-'0')
	}
	if n < 100 {
		return rh, errBadResponse
	}
	rh.status = n
	rh.out = append(rh.out, "HTTP/1.1 "...)
	rh.out = append(rh.out, code...)
	rh.out = append(rh.out, ' ')
	rh.out = append(rh.out, reason...)
	rh.out = append(rh.out, "\r\n"...)
	rh.reusable = string(proto) == "HTTP/1.1"
	var chunked, otherTE bool
	lengths := 0
	var drop []string
	// First pass: framing and Connection; second pass: copy what is kept.
	for r := rest; len(r) > 0; {
		var l []byte
		l, r = nextLine(r)
		if len(l) == 0 {
			break
		}
		name, value, ok := bytes.Cut(l, []byte(":"))
		if !ok || !validFieldName(name) {
			return rh, errBadResponse
		}
		var v string
		if equalFold(name, "Content-Length") || equalFold(name, "Transfer-Encoding") || equalFold(name, "Connection") {
			v = string(bytes.Trim(value, " \t"))
		}
		switch {
		case equalFold(name, "Content-Length"):
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil || x < 0 || lengths > 0 && x != rh.length {
				return rh, errBadResponse
			}
			lengths++
			rh.length = x
		case equalFold(name, "Transfer-Encoding"):
			for t := range strings.SplitSeq(v, ",") {
				chunked = false
				switch t = strings.TrimSpace(t); {
				case strings.EqualFold(t, "chunked"):
					chunked = true
				case t != "":
					otherTE = true
				}
			}
		case equalFold(name, "Connection"):
			for t := range strings.SplitSeq(v, ",") {
				t = strings.TrimSpace(t)
				switch {
				case strings.EqualFold(t, "close"):
					rh.reusable = false
				case t != "" && !strings.EqualFold(t, "keep-alive"):
					drop = append(drop, t)
				}
			}
		}
	}
	te := chunked || otherTE
	for r := rest; len(r) > 0; {
		var l []byte
		l, r = nextLine(r)
		if len(l) == 0 {
			break
		}
		name, _, _ := bytes.Cut(l, []byte(":"))
		if hopByHopResponse(name) || te && equalFold(name, "Content-Length") || containsFold(drop, name) {
			continue
		}
		rh.out = append(rh.out, l...)
		rh.out = append(rh.out, "\r\n"...)
	}
	switch {
	case bodiless(n, method):
		rh.framing = framingNone
	case te && string(proto) == "HTTP/1.0":
		// Transfer-Encoding in an HTTP/1.0 message: faulty framing, read
		// to the connection's end and close it (RFC 9112 §6.1); net/http
		// ignores the field there too, so never frame it as chunked.
		rh.framing = framingClose
		rh.reusable = false
	case chunked && !otherTE:
		rh.framing = framingChunked
		rh.out = append(rh.out, "Transfer-Encoding: chunked\r\n"...)
	case te:
		// A coding the relay cannot frame: the body ends with the
		// connection, as RFC 9112 §6.3 says for a response.
		rh.framing = framingClose
		rh.reusable = false
	case lengths > 0:
		rh.framing = framingLength
	default:
		rh.framing = framingClose
		rh.reusable = false
	}
	return rh, nil
}

// validFieldName reports whether name is a token (RFC 9110 §5.1).
func validFieldName(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		if !httpguts.IsTokenRune(rune(c)) {
			return false
		}
	}
	return true
}

// nextLine returns the first line of b without its line end, and the rest.
func nextLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

// hopByHopResponse reports whether a response field is hop-by-hop
// (RFC 9110 §7.6.1, the list httputil.ReverseProxy drops). Transfer-Encoding
// is dropped too: the relay writes its own when it passes a chunked body on.
func hopByHopResponse(name []byte) bool {
	for _, h := range [...]string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
		"Proxy-Authorization", "Te", "Transfer-Encoding", "Upgrade"} {
		if equalFold(name, h) {
			return true
		}
	}
	return false
}

// equalFold is strings.EqualFold for a []byte without a copy.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := b[i]|0x20, s[i]|0x20
		if x != y || (b[i] != s[i] && (x < 'a' || x > 'z')) {
			return false
		}
	}
	return true
}

// containsFold reports whether list holds name, ignoring case.
func containsFold(list []string, name []byte) bool {
	for _, s := range list {
		if equalFold(name, s) {
			return true
		}
	}
	return false
}

// chunkSize reads a chunk-size line of the chunked coding (RFC 9112 §7.1),
// without its CRLF: hex digits, then optional extensions after ';'. It
// returns the size or an error for anything else (bare LF lines, an empty
// or overlong size, a sign).
func chunkSize(line []byte) (int64, error) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 || len(line) > 15 {
		return 0, errBadResponse
	}
	var n int64
	for _, c := range line {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, errBadResponse
		}
		n = n<<4 | int64(c)
	}
	return n, nil
}

// bodiless reports whether a response with status n to a request with method
// has no body whatever its head says (RFC 9112 §6.3: 1xx, 204, 304, HEAD).
func bodiless(n int, method string) bool {
	return n >= 100 && n < 200 || n == 204 || n == 304 || method == "HEAD"
}
