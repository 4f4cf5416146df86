package httplistener_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain/masking"
)

const (
	email   = "alice@example.com"
	card    = "4111 1111 1111 1111"
	badLuhn = "4111 1111 1111 1112"
)

// maskedListener serves an http listener in front of up with masking rules.
func maskedListener(t *testing.T, up string, rules ...masking.Rule) string {
	t.Helper()
	set, err := masking.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + newSidecar(false).serve(t, app.ListenerSettings{Name: "api", Upstream: up, Mode: app.ModeReturn, Masking: set})
}

var pii = masking.Rule{Name: "pii", Entities: masking.EntityNames(), Strategy: masking.Mask}

// bodies answers each path with a fixed body and Content-Type.
func bodies(t *testing.T) string {
	srv, _ := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		doc := `{"user": {"contact": "` + email + `", "card": "` + card + `", "other": "` + badLuhn + `",` +
			` "n": 4111111111111111, "ssn": "123-45-6789", "tags": [{"ssn": "987-65-4321"}]}}`
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			io.WriteString(w, doc)
		case "/gzip":
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, doc)
			zw.Close()
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "write to "+email+" now")
		case "/empty":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusCreated)
		case "/watch":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"type": "ADDED", "object": {"card": "`+card+`"}}`+"\n"+`{"type": "DELETED", "object": {"mail": "`+email+`"}}`+"\n")
		case "/deep":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, strings.Repeat(`{"a":`, 200)+`"`+email+`"`+strings.Repeat("}", 200))
		case "/png":
			w.Header().Set("Content-Type", "image/png")
			io.WriteString(w, email)
		case "/bad":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"a": "`+email)
		case "/br":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "br")
			io.WriteString(w, "xx")
		case "/bigcl":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(9<<20))
			io.Copy(w, io.LimitReader(zeros{}, 9<<20))
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			w.(http.Flusher).Flush() // chunked
			io.Copy(w, io.LimitReader(zeros{}, 9<<20))
		}
	})
	return srv.URL
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// get sends a GET through the relay, or with chunked through net/http's
// server (a request with a body of unknown length is handed off).
func get(t *testing.T, url string, handoff bool, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if handoff {
		req, _ = http.NewRequest("POST", url, io.MultiReader(strings.NewReader("x")))
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func bothPaths(t *testing.T, f func(t *testing.T, handoff bool)) {
	t.Run("relay", func(t *testing.T) { f(t, false) })
	t.Run("net-http", func(t *testing.T) { f(t, true) })
}

func TestMaskJSONByEntityAndColumn(t *testing.T) {
	up := bodies(t)
	ssn := masking.Rule{Name: "ssn", Columns: []string{"ssn"}, Strategy: masking.Partial, KeepLast: 4}
	base := maskedListener(t, up, ssn, pii)
	bothPaths(t, func(t *testing.T, handoff bool) {
		resp, body := get(t, base+"/json", handoff)
		if resp.StatusCode != 200 || strings.Contains(body, email) || strings.Contains(body, card) ||
			strings.Contains(body, "4111111111111111") || strings.Contains(body, "6789") && !strings.Contains(body, "***-**-6789") {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		m := jsonObject(t, body)["user"].(map[string]any)
		if m["contact"] != "*****@*******.***" || m["other"] != badLuhn || m["n"] != nil || m["ssn"] != "***-**-6789" ||
			m["tags"].([]any)[0].(map[string]any)["ssn"] != "***-**-4321" {
			t.Errorf("masked %v", m)
		}
		if resp.ContentLength != int64(len(body)) {
			t.Errorf("Content-Length %d for %d bytes", resp.ContentLength, len(body))
		}
	})
}

func TestMaskGzipBody(t *testing.T) {
	base := maskedListener(t, bodies(t), pii)
	bothPaths(t, func(t *testing.T, handoff bool) {
		resp, body := get(t, base+"/gzip", handoff)
		if resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("Content-Encoding %q", resp.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := io.ReadAll(zr)
		if bytes.Contains(d, []byte(email)) || !bytes.Contains(d, []byte("*****@*******.***")) {
			t.Errorf("decoded %s", d)
		}
	})
}

func TestMaskTextOpaqueAndRefusals(t *testing.T) {
	up := bodies(t)
	strict := maskedListener(t, up, pii)
	best := pii
	best.Mode = masking.BestEffort
	lenient := maskedListener(t, up, best)
	bothPaths(t, func(t *testing.T, handoff bool) {
		if _, body := get(t, strict+"/text", handoff); body != "write to *****@*******.*** now" {
			t.Errorf("text %q", body)
		}
		if resp, body := get(t, strict+"/empty", handoff); resp.StatusCode != 201 || body != "" {
			t.Errorf("an empty JSON body: %d %q", resp.StatusCode, body)
		}
		want := `{"type": "ADDED", "object": {"card": "**** **** **** ****"}}` + "\n" + `{"type": "DELETED", "object": {"mail": "*****@*******.***"}}` + "\n"
		if _, body := get(t, strict+"/watch", handoff); body != want {
			t.Errorf("a sequence of JSON values: %q", body)
		}
		if _, body := get(t, strict+"/png", handoff); body != email {
			t.Errorf("an image was changed: %q", body)
		}
		for _, p := range []string{"/bad", "/br", "/big", "/bigcl", "/deep"} {
			resp, body := get(t, strict+p, handoff)
			if resp.StatusCode != 502 || !strings.Contains(body, `masking rule \"pii\" could not read a value`) ||
				strings.Contains(body, email) {
				t.Errorf("strict %s: %d %.200q", p, resp.StatusCode, body)
			}
			resp, body = get(t, lenient+p, handoff)
			if resp.StatusCode != 200 || strings.HasPrefix(p, "/big") && len(body) != 9<<20 {
				t.Errorf("best_effort %s: %d %d bytes", p, resp.StatusCode, len(body))
			}
		}
	})
}

// After a refused body the relayed connection carries the next request,
// which is masked as usual.
func TestMaskRefusalKeepsTheConnection(t *testing.T) {
	base := maskedListener(t, bodies(t), pii)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for _, p := range []string{"/bad", "/text", "/br", "/json"} {
		if _, err := io.WriteString(c, "GET "+p+" HTTP/1.1\r\nHost: api\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := 200
		if p == "/bad" || p == "/br" {
			want = 502
		}
		if resp.StatusCode != want || resp.Close || bytes.Contains(b, []byte(email)) {
			t.Fatalf("%s: %d close=%v %q", p, resp.StatusCode, resp.Close, b)
		}
	}
}
