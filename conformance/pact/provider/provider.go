package provider

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/conformance/pact/contract"
)

// Provider is the reference Control Plane under verification: server.New,
// the handler cmd/controlplane serves, behind one httptest server on
// 127.0.0.1:0. Setup rebuilds the handler on a fresh SQLite store for each
// provider state, so no interaction sees another's requests.
type Provider struct {
	// URL is the base URL to verify, e.g. http://127.0.0.1:41234.
	URL string

	t   testing.TB
	log *slog.Logger
	srv *httptest.Server

	mu      sync.Mutex
	handler http.Handler
	st      store.Store
	n       int
}

// Start starts a Provider on an empty store; it stops when t ends. log
// receives the Control Plane's request log (nil discards it).
func Start(t testing.TB, log *slog.Logger) *Provider {
	t.Helper()
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p := &Provider{t: t, log: log}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	t.Cleanup(func() {
		p.srv.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.st != nil {
			p.st.Close()
		}
	})
	if _, err := p.Setup(contract.StateEmpty, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *Provider) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	h := p.handler
	p.mu.Unlock()
	h.ServeHTTP(w, r)
}

// Setup sets up provider state name with its parameters (contract.States):
// a fresh SQLite store, seeded as the state says, behind a new handler
// (without X-Hoop-Api-Version for contract.StateOlder). It returns the
// values the verifier injects into the request ({"id": …}), or an error for
// an unknown state or missing parameter.
func (p *Provider) Setup(name string, params map[string]any) (map[string]any, error) {
	seed, ok := seeds[name]
	if !ok {
		return nil, fmt.Errorf("provider state %q: no set-up for it (known: %q)", name, contract.States)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.mu.Lock()
	p.n++
	addr := "sqlite:" + filepath.Join(p.t.TempDir(), fmt.Sprintf("cp-%d.db", p.n))
	p.mu.Unlock()
	st, err := store.Open(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("provider state %q: %w", name, err)
	}
	values, err := seed(ctx, st, time.Now(), params)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("provider state %q: %w", name, err)
	}
	o := server.Options{
		Store:          st,
		Sidecars:       map[string]string{contract.SidecarToken: contract.SidecarName, contract.OtherToken: contract.OtherSidecarName},
		Approvers:      map[string]string{contract.ApproverToken: contract.ApproverName},
		Version:        "pact-verification",
		OmitAPIVersion: name == contract.StateOlder,
		Logger:         p.log,
	}
	if name == contract.StateSmallBody {
		o.MaxBody = contract.SmallBodyLimit
	}
	h := server.New(o)
	p.mu.Lock()
	old := p.st
	p.st, p.handler = st, h
	p.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return values, nil
}

// Store returns the store of the current provider state.
func (p *Provider) Store() store.Store {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st
}
