package httplistener_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/hoophq/sidecar/domain/masking"
)

// Content-Types a client still reads but mime.ParseMediaType refuses (a
// bad parameter): the listener fell back to text, so a UTF-16 body was
// scanned as bytes (no entity found) and a JSON body lost its field rules.
// A body without a Content-Type made of bare numbers parsed as a sequence
// of JSON numbers, so a card number or an SSN written with spaces was
// read as four (three) numbers, none of them an entity.
func TestMaskBreakContentType(t *testing.T) {
	u16 := utf16Text(nil, "mail "+email, false)
	srv, _ := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/utf16":
			w.Header().Set("Content-Type", "text/plain; charset=utf-16be; format")
			w.Write(u16)
		case "/json":
			w.Header().Set("Content-Type", `application/json; charset="utf-8`)
			io.WriteString(w, `{"ssn": "123456789"}`)
		case "/bare":
			w.Header()["Content-Type"] = nil
			io.WriteString(w, card+"\n")
		case "/bare-ssn":
			w.Header()["Content-Type"] = nil
			io.WriteString(w, "536 22 8726")
		}
	})
	ssn := masking.Rule{Name: "ssn", Columns: []string{"ssn"}, Strategy: masking.Redact}
	base := maskedListener(t, srv.URL, ssn, pii)
	bothPaths(t, func(t *testing.T, handoff bool) {
		if resp, body := get(t, base+"/utf16", handoff); resp.StatusCode != 502 {
			t.Errorf("utf-16 with a bad parameter: %d %q", resp.StatusCode, body)
		}
		if _, body := get(t, base+"/json", handoff); strings.Contains(body, "123456789") {
			t.Errorf("json with a bad parameter: %q", body)
		}
		if _, body := get(t, base+"/bare", handoff); strings.Contains(body, card) {
			t.Errorf("bare card number: %q", body)
		}
		if _, body := get(t, base+"/bare-ssn", handoff); strings.Contains(body, "536 22 8726") {
			t.Errorf("bare ssn: %q", body)
		}
	})
}

// A text body in UTF-16 that names no charset: with a byte order mark, or
// as text/plain whose every other byte is NUL. Clients decode it (the BOM
// decides, RFC 2781); the listener scanned it as bytes and found nothing.
func TestMaskBreakUTF16WithoutCharset(t *testing.T) {
	le := utf16Text([]byte{0xFF, 0xFE}, "mail "+email, true)
	noBOM := utf16Text(nil, "mail "+email, false)
	srv, _ := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bom":
			w.Header().Set("Content-Type", "text/plain")
			w.Write(le)
		case "/bom-sniff":
			w.Header()["Content-Type"] = nil
			w.Write(le)
		case "/nobom":
			w.Header().Set("Content-Type", "text/csv")
			w.Write(noBOM)
		}
	})
	base := maskedListener(t, srv.URL, pii)
	bothPaths(t, func(t *testing.T, handoff bool) {
		for _, p := range []string{"/bom", "/bom-sniff", "/nobom"} {
			if resp, body := get(t, base+p, handoff); resp.StatusCode != 502 {
				t.Errorf("%s: %d %q", p, resp.StatusCode, body)
			}
		}
	})
}

// JSON and text under types outside the short list (text/json,
// application/x-json, application/jsonl, application/x-yaml,
// application/csv, application/jwt) passed unread as opaque, or, for
// text/json, without its field rules.
func TestMaskBreakMediaTypes(t *testing.T) {
	srv, _ := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", strings.TrimPrefix(r.URL.Path, "/t/"))
		switch r.URL.Path {
		case "/t/application/jwt":
			io.WriteString(w, "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJl")
		case "/t/application/x-yaml", "/t/application/csv":
			io.WriteString(w, "mail: "+email+"\n")
		default:
			io.WriteString(w, `{"ssn": "123456789", "mail": "`+email+`"}`+"\n")
		}
	})
	ssn := masking.Rule{Name: "ssn", Columns: []string{"ssn"}, Strategy: masking.Redact}
	base := maskedListener(t, srv.URL, ssn, pii)
	for _, ct := range []string{"text/json", "application/x-json", "application/jsonl", "application/x-ndjson", "application/x-yaml", "application/csv", "application/jwt"} {
		resp, body := get(t, base+"/t/"+ct, false)
		if resp.StatusCode != 200 || strings.Contains(body, email) || strings.Contains(body, "123456789") || strings.Contains(body, "eyJhbGci") {
			t.Errorf("%s: %d %q", ct, resp.StatusCode, body)
		}
	}
}

// utf16Text appends s in UTF-16 to b, little-endian when le, else big-endian.
func utf16Text(b []byte, s string, le bool) []byte {
	for _, r := range utf16.Encode([]rune(s)) {
		if le {
			b = append(b, byte(r), byte(r>>8))
		} else {
			b = append(b, byte(r>>8), byte(r))
		}
	}
	return b
}
