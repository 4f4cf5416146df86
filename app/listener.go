package app

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/ports"
)

// Mode is what a listener does with a statement that needs approval.
type Mode string

// The two modes.
const (
	// ModeReturn files (or reuses) the approval request and denies at once
	// with its id; the agent resends once approved.
	ModeReturn Mode = "return"
	// ModeWait holds the statement until a person decides or WaitTimeout ends.
	ModeWait Mode = "wait"
)

// TLSClient is TLS towards an upstream.
type TLSClient struct {
	Enabled            bool
	CAFile             string
	ServerName         string
	InsecureSkipVerify bool
	CertFile, KeyFile  string // client certificate, optional
}

// TLSServer is TLS offered to clients on the listener.
type TLSServer struct {
	CertFile, KeyFile string
	// ClientCAFile, when set, makes the listener ask clients for a
	// certificate and verify one that is sent against these CAs (PEM). The
	// mongodb listener uses it for MONGODB-X509 (X509Logins).
	ClientCAFile string
}

// X509Login maps a client certificate's subject (RFC 2253, as MongoDB
// names X.509 users) to the client certificate the listener presents to the
// upstream for that client, by file.
type X509Login struct {
	Subject           string
	CertFile, KeyFile string
}

// Enabled reports whether a certificate is configured.
func (t TLSServer) Enabled() bool { return t.CertFile != "" }

// ListenerSettings is one listener's configuration, as protocol adapters see
// it. It is immutable; a reload swaps in a new value (Listener.Settings).
type ListenerSettings struct {
	Name     string
	Protocol string
	Listen   string
	Upstream string
	// UpstreamTLS and TLS are the TLS settings towards the upstream and
	// towards clients.
	UpstreamTLS TLSClient
	TLS         TLSServer
	// X509Logins are the client certificate subjects the listener logs in
	// upstream for, each with its upstream certificate (mongodb only).
	X509Logins  []X509Login
	Mode        Mode
	WaitTimeout time.Duration
	SpendOn     ports.SpendOn
	// IdentityKeys are the http headers / grpc metadata keys (lowercase)
	// whose values enter the fingerprint (none by default).
	IdentityKeys []string
	Policies     []domain.PolicyRule
	Approvals    []domain.ApprovalRule
	// Masking is the listener's masking rules (nil: it masks nothing and
	// reads no result; docs/masking.md). See MaskPlan.
	Masking *masking.Set
}

// Protocol is one listener protocol (http, postgres, grpc…). An adapter
// package registers one with fx (see ProvideProtocol). The core never knows
// which protocol it serves.
type Protocol interface {
	// Name is the protocol's name in the config file (e.g. "postgres").
	Name() string
	// Serve serves clients on ln until ctx is cancelled or ln is closed,
	// and then returns (nil unless serving itself failed). ctx ends when the
	// listener stops: shutdown, or a reload removed or moved it.
	//
	// The connections then drain, in the background: a connection with
	// nothing in flight is closed at once; one with a statement in flight
	// is closed once the statement has been answered. When l.DrainDeadline
	// is closed, the connections still open are ended with the protocol's
	// own shutdown error (PostgreSQL FATAL 57P01, gRPC UNAVAILABLE, http a
	// closed connection). The supervisor counts connections on the ln it
	// hands to Serve and closes any that outlive that.
	//
	// Until ctx ends, every statement is decided with l's current settings
	// (a reload updates them in place). l carries the settings and the gate.
	Serve(ctx context.Context, ln net.Listener, l *Listener) error
}

// ActionChecker is optionally implemented by a Protocol whose analyzer has a
// closed vocabulary of actions (http methods, grpc's CALL). The config check
// uses it so that a typo in a rule's actions (PUTT) is an error instead of a
// rule that silently never matches.
type ActionChecker interface {
	// CheckAction returns nil when action (any case) can come from this
	// protocol's analyzer, else an error saying which actions can.
	CheckAction(action string) error
}

// UpstreamChecker is optionally implemented by a Protocol to check a
// listener's upstream when the config is validated (e.g. http needs an
// http:// or https:// URL), so a wrong upstream fails at startup rather than
// on every statement.
type UpstreamChecker interface {
	// CheckUpstream returns nil when upstream is usable, else an error
	// saying what form it takes.
	CheckUpstream(upstream string) error
}

// IsHostPort reports whether upstream is one host:port to dial (both
// present), not a URL, a list or a connection string: none of / \ , @ ;.
// The database listeners' CheckUpstream build their messages on it.
func IsHostPort(upstream string) bool {
	host, port, err := net.SplitHostPort(upstream)
	return err == nil && host != "" && port != "" && !strings.ContainsAny(upstream, `/\,@;`)
}

// CheckHostPort is the CheckUpstream of a database listener that dials one
// host:port: nil when upstream IsHostPort, else an error naming the
// listener's protocol, an example upstream and, for a URL or a missing
// port, what to write instead.
func CheckHostPort(protocol, example, upstream string) error {
	if IsHostPort(upstream) {
		return nil
	}
	hint := ""
	switch {
	case strings.Contains(upstream, "://"):
		hint = ": give the server's host:port; each client logs in with its own user and database"
	case !strings.Contains(upstream, ":"):
		hint = ": add the port"
	}
	return fmt.Errorf("the upstream of a %s listener is host:port (e.g. %s), not %q%s", protocol, example, upstream, hint)
}

// Listener is a running listener: its current settings (swapped atomically
// on reload) and the gate its adapter asks about each statement.
type Listener struct {
	settings atomic.Pointer[ListenerSettings]
	gate     *Gate
	queries  *Approvals
	limits   Limits
	held     *HeldBudget

	deadline     chan struct{} // closed by EndDrain
	deadlineOnce sync.Once
}

// NewListener returns a Listener with settings s, deciding through g and
// answering status reads through q (q may be used by adapters that serve a
// status path).
func NewListener(s ListenerSettings, g *Gate, q *Approvals) *Listener {
	l := &Listener{gate: g, queries: q, held: NewHeldBudget(0), deadline: make(chan struct{})}
	l.settings.Store(&s)
	return l
}

// DrainDeadline returns a channel that is closed when the connections of a
// stopped listener must end (Protocol.Serve). It stays open while the
// listener serves.
func (l *Listener) DrainDeadline() <-chan struct{} { return l.deadline }

// EndDrain closes DrainDeadline's channel: the supervisor calls it when the
// drain deadline (shutdown_grace) has passed, tests when they stop a
// listener. It is idempotent.
func (l *Listener) EndDrain() { l.deadlineOnce.Do(func() { close(l.deadline) }) }

// Settings returns the current settings. Adapters read it per statement (or
// per connection), so a reload applies without dropping connections.
func (l *Listener) Settings() *ListenerSettings { return l.settings.Load() }

// Update swaps in new settings (reload).
func (l *Listener) Update(s ListenerSettings) { l.settings.Store(&s) }

// Limits returns the process's memory limits, defaults filled in.
func (l *Listener) Limits() Limits { return l.limits.WithDefaults() }

// Held returns the held-payload budget shared by every listener of the
// process (a budget of its own, of the default size, for a Listener made
// with NewListener outside a Core).
func (l *Listener) Held() *HeldBudget { return l.held }

// Masked records what plan p masked in one statement's result, once the
// result was sent (Gate.Masked): the "masked" or "mask_withheld" audit line
// and the masking metrics. s is the settings the statement was decided
// with; withheld is the *masking.UnreadableError the result was refused
// with, or nil.
func (l *Listener) Masked(s *ListenerSettings, client, identity string, p *masking.Plan, withheld error) {
	l.gate.Masked(s, client, identity, p, withheld)
}

// Approvals returns the approval queries (for a status path).
func (l *Listener) Approvals() *Approvals { return l.queries }

// Check asks the gate about one statement with the listener's current settings.
func (l *Listener) Check(ctx context.Context, st Statement) Outcome {
	return l.gate.Check(ctx, l.Settings(), st)
}

// CheckWith asks the gate about one statement with settings s, which the
// adapter read once for this statement (from Settings) and used to decide
// what to read of it, so a reload in between cannot pair one rule set's
// reading with another's decision.
func (l *Listener) CheckWith(ctx context.Context, s *ListenerSettings, st Statement) Outcome {
	return l.gate.Check(ctx, s, st)
}

// CheckAllowed is CheckWith's fast path for the common statement that the
// rules of s allow outright (no policy and no approval rule matches
// st.Analysis): it records the allow as CheckWith does (metrics, and the
// audit trail when it keeps allows) and reports true; the caller forwards
// without building what only a held statement needs (a cancellable
// context, a hang-up watch, identity values). Otherwise it records nothing,
// leaves the verdict in st.Evaluation so that CheckWith does not evaluate
// the rules again, and reports false. An allowed statement never waits, so
// no context is needed.
func (l *Listener) CheckAllowed(s *ListenerSettings, st *Statement) bool {
	ev := evaluateStatement(s, st)
	if ev.Verdict == domain.VerdictAllow && st.Unread.Why == "" {
		allow := *st
		allow.Evaluation = &allowed
		if ev.Reported != nil { // a report-only rule matched: the gate records it
			reported := new(domain.Evaluation) // only here: a plain allow costs no allocation
			*reported = ev
			allow.Evaluation = reported
		}
		return l.gate.Check(context.Background(), s, allow).Forward
	}
	held := new(domain.Evaluation) // only here: an allow costs no allocation
	*held = ev
	st.Evaluation = held
	return false
}

// allowed is the verdict CheckAllowed passes to the gate (read only).
var allowed = domain.Evaluation{Verdict: domain.VerdictAllow}
