package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/app"
)

// Path is the MCP endpoint's path: the server answers at http://<listen>/mcp.
const Path = "/mcp"

// Options configures New.
type Options struct {
	// Listen is the address to bind (config mcp.listen), e.g. "127.0.0.1:8765".
	// Required.
	Listen string
	// AllowedHosts are extra Host names (config mcp.allowed_hosts) accepted
	// besides loopback names and IP addresses, on a loopback Listen and in
	// an Origin; "name" accepts any port, "name:port" only that port. A
	// Listen that is not loopback answers every Host. See guard.go.
	AllowedHosts []string
	// Approvals answers the tools. Required, and it must have a Control Plane.
	Approvals *app.Approvals
	// Log receives refused requests and Control Plane failures (discarded when nil).
	Log *slog.Logger
	// Version is reported to clients in the initialize answer ("dev" when empty).
	Version string
}

// Server is the MCP server of one Sidecar. Create it with New, then Start it
// (or mount Handler on a server of your own).
type Server struct {
	opts    Options
	log     *slog.Logger
	q       *app.Approvals
	guard   *guard
	handler http.Handler

	// stopping is cancelled by Shutdown: waits in flight answer timed_out.
	stopping context.Context
	stop     context.CancelFunc

	mu  sync.Mutex
	ln  net.Listener
	srv *http.Server
}

// New builds the server from o. It binds nothing (see Start). Errors: no
// listen address, no Approvals, a Sidecar without Control Plane (the spec
// refuses an mcp block without one), or a bad allowed_hosts entry.
func New(o Options) (*Server, error) {
	if o.Listen == "" {
		return nil, errors.New("mcp.listen is required")
	}
	if o.Approvals == nil {
		return nil, errors.New("mcp: no approval queries")
	}
	if !o.Approvals.HasControlPlane() {
		return nil, errors.New("the mcp block needs a Control Plane: add control_plane or remove the mcp block")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	g, err := newGuard(o.AllowedHosts, o.Log)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, log: o.Log, q: o.Approvals, guard: g}
	s.stopping, s.stop = context.WithCancel(context.Background())

	ms := sdk.NewServer(&sdk.Implementation{Name: "hoop-sidecar", Title: "hoop Sidecar approvals", Version: o.Version},
		&sdk.ServerOptions{
			Instructions: serverInstructions,
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		})
	s.addTools(ms)
	streamable := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return ms }, &sdk.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: false, // progress notifications need an SSE answer
		// guard.go does the Host check (on a loopback listen) and the
		// Origin checks (on every listen), with the configured allowlist.
		DisableLocalhostProtection:   true,
		MaxRequestBodyBytes:          256 << 10,
		PropagateRequestCancellation: true,
	})
	mux := http.NewServeMux()
	mux.Handle(Path, captureRequest(streamable))
	s.handler = g.wrap(mux)
	return s, nil
}

const serverInstructions = "This server reads the approval requests of one hoop Sidecar. When a statement is denied " +
	"with an approval id, call approval_wait with that id; when next is resend_identical_statement, resend the " +
	"identical statement once. When next is stop, stop. Answers never contain the statement and nothing here approves."

// Handler returns the HTTP handler serving /mcp, with the Host and Origin
// checks applied; until Start binds a non-loopback address, the Host check
// applies as on a loopback listen. Serve it without a WriteTimeout:
// approval_wait answers stream for up to 300 s.
func (s *Server) Handler() http.Handler { return s.handler }

// Start binds Options.Listen now and serves in the background. It returns
// the bind error (which stops the Sidecar, spec "The MCP server"). The bound
// address decides the Host check: loopback keeps it, any other address
// answers every Host (guard.go).
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return errors.New("mcp server already started")
	}
	ln, err := net.Listen("tcp", s.opts.Listen)
	if err != nil {
		return fmt.Errorf("mcp: listen %s: %w", s.opts.Listen, err)
	}
	s.ln = ln
	s.guard.useListen(ln.Addr())
	s.srv = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// No ReadTimeout or WriteTimeout: an approval_wait answer streams
		// for up to 300 s, and a read deadline would end the hang-up
		// detection that stops a wait whose caller left.
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	srv := s.srv
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("mcp server stopped", "listen", ln.Addr().String(), "error", err)
		}
	}()
	return nil
}

// Addr returns the bound address ("host:port"), or "" before Start.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Shutdown stops accepting calls, ends the waits in flight (they answer
// timed_out: true, so the agent calls again, possibly on another replica),
// and waits for answers to finish until ctx ends; then it closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stop()
	s.mu.Lock()
	srv := s.srv
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
		return err
	}
	return nil
}
