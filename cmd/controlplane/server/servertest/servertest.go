// Package servertest starts the reference Control Plane in-process for tests:
// an httptest server over server.New with a fresh store, fixed tokens and a
// settable clock, plus a small JSON client.
package servertest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
)

// Tokens the test Control Plane accepts.
const (
	DemoToken     = "tok-sidecar-demo"   // Sidecar "demo"
	OtherToken    = "tok-sidecar-other"  // Sidecar "other"
	ApproverToken = "tok-approver-alice" // approver "alice"
)

// Clock is a settable clock; the zero value reads time.Now until Set.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Set fixes the clock at t.
func (c *Clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// Now returns the fixed time, or time.Now when none was set.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.IsZero() {
		return time.Now()
	}
	return c.t
}

// CP is a running test Control Plane.
type CP struct {
	*httptest.Server
	Store store.Store
	Clock *Clock
	t     testing.TB
}

// Start runs a Control Plane on a fresh store of kind ("sqlite" or
// "postgres"); opts may adjust the options (Store, tokens and clock are
// already set). It stops when t ends.
func Start(t testing.TB, kind string, opts func(*server.Options)) *CP {
	t.Helper()
	return StartOn(t, storetest.Open(t, kind), opts)
}

// StartOn runs a Control Plane on st.
func StartOn(t testing.TB, st store.Store, opts func(*server.Options)) *CP {
	t.Helper()
	c := &Clock{}
	o := server.Options{
		Store:     st,
		Sidecars:  map[string]string{DemoToken: "demo", OtherToken: "other"},
		Approvers: map[string]string{ApproverToken: "alice"},
		Version:   "test",
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now:       c.Now,
	}
	if opts != nil {
		opts(&o)
	}
	srv := httptest.NewServer(server.New(o))
	t.Cleanup(srv.Close)
	return &CP{Server: srv, Store: st, Clock: c, t: t}
}

// Answer is a decoded HTTP answer.
type Answer struct {
	Status int
	Header http.Header
	Raw    []byte
	// JSON is the body decoded as an object (nil when it is not one).
	JSON map[string]any
}

// Do sends method path with a Bearer token (none when "") and body (JSON-
// encoded unless it is a string or nil).
func (c *CP) Do(method, path, token string, body any) Answer {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.URL+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Client().Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := Answer{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &a.JSON)
	return a
}

// File files a request for the Sidecar with token through the Sidecar API
// and returns the answer; extra keys are merged into the body.
func (c *CP) File(token, fingerprint string, extra map[string]any) Answer {
	c.t.Helper()
	body := map[string]any{
		"fingerprint": fingerprint, "listener_name": "billing-api", "approval_rule": "billing-approvers",
		"statement": "DELETE /v1/invoices/42", "protocol": "http", "client_identity": "agent",
	}
	for k, v := range extra {
		body[k] = v
	}
	return c.Do("POST", "/api/sidecars/reviews", token, body)
}
