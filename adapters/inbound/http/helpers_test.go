package httplistener_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	httplistener "github.com/hoophq/sidecar/adapters/inbound/http"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/ports"
)

// recorded is one request as the upstream saw it.
type recorded struct {
	Method, Path, RawQuery, Host string
	Header                       http.Header
	Body                         []byte
	RequestURI                   string // the request target as the upstream read it
}

// recorder is an upstream that records every request that reaches it.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

func (rc *recorder) add(r *http.Request, body []byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.reqs = append(rc.reqs, recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Host, r.Header.Clone(), body, r.RequestURI})
}

func (rc *recorder) all() []recorded {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]recorded(nil), rc.reqs...)
}

// count returns how many requests with method and path reached the upstream.
func (rc *recorder) count(method, path string) int {
	n := 0
	for _, r := range rc.all() {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

// assertNoReserved fails t when any request under /.well-known/hoop/ (in any
// spelling, or in any reading of httplistener.OracleInPrefix) reached the
// upstream.
func (rc *recorder) assertNoReserved(t *testing.T) {
	t.Helper()
	for _, r := range rc.all() {
		in, settled := httplistener.OracleInPrefix(r.RequestURI)
		if in || !settled || strings.Contains(strings.ToLower(r.Path), "well-known") {
			t.Errorf("upstream received %s %s", r.Method, r.RequestURI)
		}
	}
}

// newUpstream starts a recording upstream. next, when set, answers after the
// request is recorded (the body is already read for non-streaming handlers);
// otherwise the answer is 200 "upstream ok <method> <path>".
func newUpstream(t *testing.T, next http.HandlerFunc) (*httptest.Server, *recorder) {
	t.Helper()
	rc := &recorder{}
	srv := httptest.NewServer(recordingHandler(rc, next))
	t.Cleanup(srv.Close)
	return srv, rc
}

func recordingHandler(rc *recorder, next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if next != nil && r.Header.Get("X-Test-Stream") != "" {
			rc.add(r, nil)
			next(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		rc.add(r, body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if next != nil {
			next(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "upstream ok "+r.Method+" "+r.URL.Path)
	})
}

// flakyCP wraps the fake Control Plane with switches that make it fail the
// way a real one does.
type flakyCP struct {
	*fakecp.CP
	down     atomic.Bool // every call: ErrUnavailable
	older    atomic.Bool // every call: ErrOlder
	getFails atomic.Bool // Get only: ErrUnavailable
}

func (f *flakyCP) fail() error {
	switch {
	case f.down.Load():
		return ports.ErrUnavailable
	case f.older.Load():
		return ports.ErrOlder
	}
	return nil
}

func (f *flakyCP) File(ctx context.Context, r ports.FileRequest) (ports.Filed, error) {
	if err := f.fail(); err != nil {
		return ports.Filed{}, err
	}
	return f.CP.File(ctx, r)
}

func (f *flakyCP) Get(ctx context.Context, id string) (domain.Approval, error) {
	if err := f.fail(); err != nil {
		return domain.Approval{}, err
	}
	if f.getFails.Load() {
		return domain.Approval{}, ports.ErrUnavailable
	}
	return f.CP.Get(ctx, id)
}

func (f *flakyCP) Claim(ctx context.Context, id, fp string, s ports.SpendOn, key ports.ClaimKey) (domain.Approval, bool, error) {
	if err := f.fail(); err != nil {
		return domain.Approval{}, false, err
	}
	return f.CP.Claim(ctx, id, fp, s, key)
}

func (f *flakyCP) Settle(ctx context.Context, id string, key ports.ClaimKey, accepted bool) (domain.Approval, error) {
	if err := f.fail(); err != nil {
		return domain.Approval{}, err
	}
	return f.CP.Settle(ctx, id, key, accepted)
}

// sidecar is an in-process Sidecar core with its Control Plane fake.
type sidecar struct {
	*listenertest.Sidecar[*flakyCP]
}

// newSidecar builds a core; withCP false means no Control Plane at all.
func newSidecar(withCP bool) *sidecar {
	return &sidecar{listenertest.NewSidecar(withCP, newFlakyCP, app.Limits{})}
}

func newFlakyCP() *flakyCP { return &flakyCP{CP: fakecp.New(nil)} }

// limitedSidecar is newSidecar(true) with memory limits l.
func limitedSidecar(l app.Limits) *sidecar {
	return &sidecar{listenertest.NewSidecar(true, newFlakyCP, l)}
}

// serve starts an http listener with settings s on 127.0.0.1:0 and returns
// its address; it stops with the test.
func (sc *sidecar) serve(t testing.TB, s app.ListenerSettings) string {
	t.Helper()
	s.Protocol = "http"
	return listenertest.Serve(t, httplistener.New(nil), sc.Core.Listener(s))
}

// rule builds a compiled approval rule.
func rule(t *testing.T, name string, actions, targets []string, limit time.Duration) domain.ApprovalRule {
	t.Helper()
	m := domain.Match{Actions: actions, Targets: targets}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return domain.ApprovalRule{Name: name, Match: m, TimeLimit: limit}
}

// deleteRule holds every DELETE under /v1/.
func deleteRule(t *testing.T) domain.ApprovalRule {
	return rule(t, "deletes", []string{"DELETE"}, []string{"/v1/**"}, 0)
}

// send does one request on a fresh connection and returns the answer with
// its body read.
func send(t *testing.T, method, url string, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// jsonObject decodes an object body.
func jsonObject(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", body, err)
	}
	return m
}
