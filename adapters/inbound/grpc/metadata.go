package grpclistener

import (
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2/hpack"

	"github.com/hoophq/sidecar/domain"
)

// fields are the decoded header fields of one HEADERS block, in the order
// the peer sent them (pseudo-headers first).
type fields []hpack.HeaderField

// Get returns every value of the field name in any case (HTTP/2 sends
// names in lowercase), in order: the app.Values of a call's metadata.
func (f fields) Get(name string) []string {
	if !ascii(name) {
		name = strings.ToLower(name)
	}
	var out []string
	for _, hf := range f {
		if isLower(hf.Name, name) {
			out = append(out, hf.Value)
		}
	}
	return out
}

// isLower reports whether s is name with its ASCII letters in lowercase
// (strings.ToLower(name) for an ASCII name, without building it).
func isLower(s, name string) bool {
	if len(s) != len(name) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if s[i] != c {
			return false
		}
	}
	return true
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// first returns the first value of name, "" when there is none.
func (f fields) first(name string) string {
	for _, hf := range f {
		if hf.Name == name {
			return hf.Value
		}
	}
	return ""
}

// dropped reports whether the listener does not forward the request field
// name: connection headers HTTP/2 forbids (RFC 9113 section 8.2.2), and
// the Sidecar's own x-hoop-approval.
func dropped(name string) bool {
	switch name {
	case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host":
		return true
	}
	return name == approvalKey
}

// approvalKey is x-hoop-approval as HTTP/2 sends it.
var approvalKey = strings.ToLower(domain.Names.HeaderApprovalMode)

// forwardFields returns the request fields to send upstream: f without
// the dropped ones, with :authority set to authority (the upstream's name, as a
// gRPC client of it would send), and grpc-timeout set to timeout when
// timeout is positive (the time a held call has left). They are appended
// to out[:0].
func forwardFields(out, f fields, authority string, timeout time.Duration) fields {
	out = out[:0]
	for _, hf := range f {
		switch {
		case dropped(hf.Name):
			continue
		case hf.Name == ":authority" && authority != "":
			hf.Value = authority
		case hf.Name == "grpc-timeout" && timeout > 0:
			hf.Value = encodeTimeout(timeout)
		}
		out = append(out, hf)
	}
	return out
}

// parseTimeout reads a grpc-timeout value ("100m", "5S": at most 8 digits
// and a unit H, M, S, m, u or n); ok is false for a malformed one.
func parseTimeout(v string) (time.Duration, bool) {
	if len(v) < 2 || len(v) > 9 {
		return 0, false
	}
	n, err := strconv.ParseInt(v[:len(v)-1], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	unit := map[byte]time.Duration{'H': time.Hour, 'M': time.Minute, 'S': time.Second,
		'm': time.Millisecond, 'u': time.Microsecond, 'n': time.Nanosecond}[v[len(v)-1]]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// encodeTimeout writes d as a grpc-timeout value in the finest unit that
// fits 8 digits.
func encodeTimeout(d time.Duration) string {
	for _, u := range []struct {
		d time.Duration
		c string
	}{{time.Nanosecond, "n"}, {time.Microsecond, "u"}, {time.Millisecond, "m"}, {time.Second, "S"}, {time.Minute, "M"}} {
		if v := d / u.d; v < 99999999 {
			return strconv.FormatInt(int64((d+u.d-1)/u.d), 10) + u.c
		}
	}
	return strconv.FormatInt(int64(d/time.Hour)+1, 10) + "H"
}

// grpcMessage percent-encodes a grpc-message value (gRPC over HTTP/2,
// "Status-Message": bytes outside printable ASCII, and '%', as %XX).
func grpcMessage(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '%' {
			b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)|0x100, 16)[1:]))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
