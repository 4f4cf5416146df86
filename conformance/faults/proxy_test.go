package faults

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// fault is what the proxy does to a call instead of relaying it.
type fault string

const (
	// drop: the Control Plane applies the call; its answer is lost (the
	// Sidecar's connection is reset).
	drop fault = "drop"
	// late: the Control Plane applies the call; its answer reaches the
	// Sidecar after lateBy, past the Sidecar's control_plane.timeout.
	late fault = "late"
	// hang: the call never reaches the Control Plane, and the proxy holds
	// the connection open without answering (a Control Plane that accepts
	// and never answers) until the Sidecar gives up.
	hang fault = "hang"
	// half: the Control Plane applies the call; the Sidecar gets the status
	// line, the headers and half the body, then a reset.
	half fault = "half"
	// kill: the call is forwarded and, while it is with the Control Plane,
	// the proxy's kill runs (a SIGKILL of the Control Plane); the Sidecar's
	// connection is then reset, whatever the Control Plane answered.
	kill fault = "kill"
)

// lateBy is how late a late answer is: past the 2 s timeout the tests
// configure.
const lateBy = 3 * time.Second

// plan is how many of the next calls whose path ends in a suffix get a
// fault.
type plan struct {
	fault fault
	n     int
}

// answerDropper is an HTTP proxy in front of a Control Plane. It forwards
// every call except those pick chooses a fault for (by default the first
// plans[suffix].n calls whose path ends in suffix get plans[suffix].fault).
type answerDropper struct {
	*httptest.Server
	mu      sync.Mutex
	plans   map[string]plan
	pick    func(r *http.Request) (fault, bool) // nil: take
	kill    func()                              // the kill fault's (kill_test.go)
	dropped []string                            // "<fault> POST /api/…" of each call faulted
	failed  int                                 // calls relayed that the Control Plane failed (5xx) or could not be reached for
}

func newAnswerDropper(t *testing.T, upstream string, plans map[string]plan) *answerDropper {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	p := &answerDropper{plans: plans}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode >= 500 {
			p.countFailed()
		}
		return nil
	}
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		p.countFailed()
		w.WriteHeader(http.StatusBadGateway)
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := p.choose(r)
		if !ok {
			rp.ServeHTTP(w, r)
			return
		}
		p.inflict(f, rp, w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// choose says which fault, if any, r gets, and records it.
func (p *answerDropper) choose(r *http.Request) (fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var f fault
	var ok bool
	if p.pick != nil {
		f, ok = p.pick(r)
	} else {
		f, ok = p.take(r)
	}
	if ok {
		p.dropped = append(p.dropped, string(f)+" "+r.Method+" "+r.URL.Path)
	}
	return f, ok
}

// inflict serves r through rp with fault f instead of relaying it.
func (p *answerDropper) inflict(f fault, rp http.Handler, w http.ResponseWriter, r *http.Request) {
	switch f {
	case kill:
		forwarded := make(chan struct{})
		go func() { defer close(forwarded); rp.ServeHTTP(httptest.NewRecorder(), r) }()
		time.Sleep(killAfter())
		p.kill()
		<-forwarded
		panic(http.ErrAbortHandler)
	case hang:
		select { // bounded, so closing the proxy never waits on it
		case <-r.Context().Done():
		case <-time.After(4 * lateBy):
		}
	case late:
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		select {
		case <-time.After(lateBy):
		case <-r.Context().Done():
			return
		}
		relay(w, rec, len(rec.Body.Bytes()))
	case half:
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		relay(w, rec, len(rec.Body.Bytes())/2)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	default: // drop
		rp.ServeHTTP(httptest.NewRecorder(), r)
		panic(http.ErrAbortHandler)
	}
}

// relay writes rec's status, headers and first n body bytes to w, keeping
// its Content-Length (a half answer is then visibly cut short).
func relay(w http.ResponseWriter, rec *httptest.ResponseRecorder, n int) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(bytes.Clone(rec.Body.Bytes()[:n]))
}

// take is the default pick (p.mu held): the plans, in order of calls.
func (p *answerDropper) take(r *http.Request) (fault, bool) {
	for s, pl := range p.plans {
		if pl.n > 0 && strings.HasSuffix(r.URL.Path, s) {
			pl.n--
			p.plans[s] = pl
			return pl.fault, true
		}
	}
	return "", false
}

func (p *answerDropper) countFailed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failed++
}

// failedCalls is how many calls the Control Plane failed (5xx) or could
// not be reached for.
func (p *answerDropper) failedCalls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}

// setPick makes pick choose the faults from now on.
func (p *answerDropper) setPick(pick func(r *http.Request) (fault, bool)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pick = pick
}

func (p *answerDropper) droppedCalls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.dropped...)
}
