package app

import (
	"context"
	"errors"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// Statement is one statement as a protocol adapter hands it to the gate.
type Statement struct {
	// Identity is the client's login user where the protocol has one.
	Identity string
	// IdentityValues are the values of the listener's IdentityKeys on this
	// request (http headers, grpc metadata), keyed by lowercase key.
	IdentityValues map[string][]string
	// Canonical is the protocol's canonical bytes of the statement, with its
	// parameters (what the fingerprint covers).
	Canonical []byte
	// Canonicalize, when set, produces Canonical on demand: the gate calls
	// it at most once per Check, only for a statement a rule holds (a plain
	// allow needs no fingerprint). It runs on the caller's goroutine.
	Canonicalize func() []byte
	// Display is a readable rendering for the approver. It is used when
	// Render is nil.
	Display string
	// Render, when set, produces Display on demand: the gate calls it at
	// most once per Check, and only when the text is needed (a statement
	// filed with the Control Plane, a denial or approval recorded in the
	// audit trail, an allow recorded by an audit sink that keeps allows).
	// A plain allow with no audit of allows never renders. It runs on the
	// caller's goroutine, before Check returns; it must not block.
	Render func() string
	// Analysis is what the protocol's analyzer read from the statement.
	Analysis domain.Analysis
	// ReturnMode is true when the client asked for return mode on this
	// connection or request (application name token, header, metadata).
	ReturnMode bool
	// Client is the client's address, for the audit trail and logs.
	Client string
	// OnWait, when set, is called once, with the approval id, as the gate
	// begins to hold the statement in wait mode (before the first poll), so
	// the adapter can tell a person at the client why it hangs (PostgreSQL:
	// a NoticeResponse). It runs on the caller's goroutine and must not block.
	OnWait func(approvalID string)
	// Unread says what of the statement the listener could not read (a text
	// its parser refused, an EXECUTE of a statement it never saw, a text too
	// large to analyse); the zero value when it read it whole. The gate
	// refuses such a statement unchecked when domain.FailsClosed says so.
	Unread domain.Unread
	// Evaluation, when set, is the verdict Evaluate already gave for
	// Analysis with the same settings passed to Check (an adapter that
	// evaluated first to decide whether to read the payload); the gate uses
	// it instead of evaluating the rules a second time, unless it is
	// Tentative (made without the statement's identity and text, which
	// rules with identities or text need): then the gate evaluates again.
	Evaluation *domain.Evaluation
}

// Outcome is the gate's answer.
type Outcome struct {
	// Forward is true when the statement may go to the upstream.
	Forward bool
	// Denial is set when Forward is false.
	Denial *domain.Denial
	// Ticket is set when an approval was claimed (PROCESSING): the adapter
	// calls Ticket.Sent once the statement was written to the upstream,
	// Ticket.Spend once it was forwarded, or Ticket.GiveBack with the proof
	// that nothing of it ran (domain.NothingRan). All are no-ops on a nil
	// Ticket.
	Ticket *Ticket
	// ClientGone is true when the ctx given to Check ended before the gate
	// decided (the client hung up while its statement waited): nothing was
	// claimed, nothing may be forwarded, and there is nobody to answer.
	// Denial is still set, for adapters that write it regardless.
	ClientGone bool
	// Canceled is true when the ctx ended with cause ErrStatementCanceled
	// (the client cancelled the statement, e.g. a PostgreSQL CancelRequest,
	// and is still connected): nothing was claimed or forwarded; the adapter
	// answers with its protocol's cancel error.
	Canceled bool
}

// Gate decides statements. It is protocol-blind and safe for concurrent use.
type Gate struct {
	Sidecar string
	CP      ports.ControlPlane // nil when the Sidecar has no Control Plane
	Audit   ports.AuditSink
	Clock   ports.Clock
	Log     *slog.Logger
	Metrics ports.Metrics // never nil (NewCore puts ports.NoMetrics)
	Watch   *Watcher
	// WithMCP selects the denial text that names the approval_wait tool.
	WithMCP bool

	lc   lifecycle  // shutdown state and open tickets (shutdown.go)
	lost lostClaims // claims whose answer was lost, by fingerprint (claims.go)
}

// ErrNoControlPlane is returned by queries when the Sidecar runs without one.
var ErrNoControlPlane = errors.New("this Sidecar has no Control Plane")

// Check decides one statement on a listener with settings s, read once by
// the caller for the whole unit (docs/architecture.md, "one rule set per
// decision").
//
// ctx belongs to the statement's client: when it ends (the client hung up,
// or cancelled the statement, see ErrClientGone and ErrStatementCanceled),
// a wait ends at once, nothing is claimed or forwarded, polling for the
// approval stops, and the approval stays as the person left it; the
// Outcome says so (ClientGone, Canceled) and the audit trail records
// "client_gone" or "wait_canceled".
func (g *Gate) Check(ctx context.Context, s *ListenerSettings, st Statement) Outcome {
	var ev domain.Evaluation
	if st.Evaluation != nil && !st.Evaluation.Tentative {
		ev = *st.Evaluation
	} else {
		ev = evaluateStatement(s, &st)
	}
	audit := ports.AuditEvent{Time: g.Clock.Now().UTC(), Listener: s.Name, Protocol: s.Protocol, Client: st.Client,
		Identity: st.Identity}
	if st.Unread.Why != "" && domain.FailsClosed(st.Unread, ev, s.hasRules()) {
		return g.uncheckable(audit, st)
	}
	g.reportOnly(audit, ev.Reported, &st)
	if ev.Verdict == domain.VerdictAllow {
		audit.Decision = "allow"
		if g.recordsAllows() {
			audit.Statement = truncate(st.text(), 2048)
		}
		g.record(audit)
		return Outcome{Forward: true}
	}
	shown := st.text()
	audit.Statement = truncate(shown, 2048)
	if ev.Verdict == domain.VerdictPolicy {
		audit.Decision, audit.Rule = "deny_policy", ev.Policy.Name
		g.record(audit)
		return Outcome{Denial: &domain.Denial{Kind: domain.DeniedByPolicy, Rule: ev.Policy.Name,
			Message: domain.PolicyMessage(ev.Policy.Name, ev.Policy.Message)}}
	}
	rule := ev.Approval
	canonical := st.Canonical
	if st.Canonicalize != nil {
		canonical = st.Canonicalize()
	}
	fp := domain.Fingerprint(domain.FingerprintInput{Sidecar: g.Sidecar, Listener: s.Name, Protocol: s.Protocol,
		Identity: st.Identity, IdentityValues: st.IdentityValues, Canonical: canonical})
	audit.Fingerprint, audit.Rule = fp, rule.Name
	if g.CP == nil {
		return g.unavailable(audit, rule.Name, ErrNoControlPlane)
	}
	if out, done := g.reclaim(ctx, audit, s, rule.Name, fp); done {
		return out
	}
	filed, err := g.CP.File(ctx, ports.FileRequest{Fingerprint: fp, ListenerName: s.Name, ApprovalRule: rule.Name,
		Statement: Shown(shown, canonical), Protocol: s.Protocol, ClientIdentity: st.Identity, TimeLimit: rule.TimeLimit})
	if ctx.Err() != nil {
		return g.ended(ctx, audit, rule.Name, filed.Approval)
	}
	if errors.Is(err, ports.ErrTooLarge) {
		return g.tooLarge(audit, rule.Name, err)
	}
	if err != nil {
		return g.unavailable(audit, rule.Name, err)
	}
	if !filed.Reused {
		g.Metrics.ApprovalFiled(s.Name)
	}
	a := filed.Approval
	if !filed.StatusKnown {
		if got, err := g.CP.Get(ctx, a.ID); err == nil {
			a = got
		} else {
			g.Log.Warn("approval filed but its status could not be read", "listener", s.Name, "approval_id", a.ID, "error", err)
			a.Status = ""
		}
	}
	returnMode := st.ReturnMode || s.Mode == ModeReturn
	if a.EffectiveStatus(g.Clock.Now()) == domain.StatusPending && !returnMode {
		if st.OnWait != nil {
			st.OnWait(a.ID)
		}
		var werr error
		a, werr = g.waitDecision(ctx, s, a)
		if g.ShuttingDown() && (werr != nil || a.EffectiveStatus(g.Clock.Now()) == domain.StatusPending) {
			return g.shutdown(audit, rule.Name, a)
		}
		if ctx.Err() == nil && werr != nil {
			return g.unavailable(audit, rule.Name, werr)
		}
	}
	// A client that left (or cancelled) while the gate worked gets nothing
	// claimed: the approval stays for the identical resend.
	if ctx.Err() != nil {
		return g.ended(ctx, audit, rule.Name, a)
	}
	if a.EffectiveStatus(g.Clock.Now()) == domain.StatusApproved {
		key := ports.NewClaimKey()
		var until time.Time
		if a.ExpiresAt != nil {
			until = *a.ExpiresAt
		}
		c := lostClaim{id: a.ID, key: key, until: until, spend: s.SpendOn}
		claimed, won, err := g.claim(ctx, s, c, fp)
		if err != nil {
			return g.unavailable(audit, rule.Name, err)
		}
		if won {
			return g.forwardClaimed(audit, s, claimed, key, c.spend)
		}
		a = claimed
	}
	return g.deny(audit, rule.Name, a, returnMode)
}

// waitDecision holds the statement (wait mode) until the approval leaves
// PENDING, the listener's WaitTimeout (default 10 minutes) ends, ctx ends
// (the client left: the Watcher subscription is dropped on return, so
// polling stops) or the Sidecar begins to shut down (BeginShutdown); it
// returns the last status read, or a when none was. It does not wait at all
// once shutdown has begun. A Control Plane outage during the wait is waited
// out (Watcher): the error comes back, and the statement is denied as
// unavailable, only when the Control Plane is still failing at the deadline.
func (g *Gate) waitDecision(ctx context.Context, s *ListenerSettings, a domain.Approval) (domain.Approval, error) {
	timeout := s.WaitTimeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	if g.ShuttingDown() {
		return a, context.Canceled
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stopping := g.lc.stoppingCh()
	go func() {
		select {
		case <-stopping:
			cancel()
		case <-ctx.Done():
		}
	}()
	got, _, err := g.Watch.WaitDecided(ctx, a.ID)
	if got.ID == "" {
		return a, err
	}
	return got, err
}

// shutdown denies a statement whose wait ended because the Sidecar is
// shutting down (DeniedShutdown); the approval is left as it is.
func (g *Gate) shutdown(audit ports.AuditEvent, rule string, a domain.Approval) Outcome {
	st := a.EffectiveStatus(g.Clock.Now())
	audit.Decision, audit.ApprovalID, audit.Status = "deny_shutdown", a.ID, string(st)
	g.record(audit)
	return Outcome{Denial: &domain.Denial{Kind: domain.DeniedShutdown, ApprovalID: a.ID, Status: st, Rule: rule,
		Message: domain.ShutdownMessage(a.ID)}}
}

func (g *Gate) deny(audit ports.AuditEvent, rule string, a domain.Approval, returnMode bool) Outcome {
	st := a.EffectiveStatus(g.Clock.Now())
	d := &domain.Denial{Kind: domain.DeniedForApproval, ApprovalID: a.ID, Status: st, Rule: rule,
		RetryAfter: returnMode && st == domain.StatusPending,
		Message:    domain.DenialMessage(a.ID, st, a.RejectionReason, g.WithMCP)}
	audit.Decision, audit.ApprovalID, audit.Status = "deny_approval", a.ID, string(st)
	g.record(audit)
	return Outcome{Denial: d}
}

// uncheckable refuses a statement the listener could not read whole
// (domain.FailsClosed): nothing is filed or run; the audit trail and the
// metrics record "deny_uncheckable", with the statement and what could not
// be read.
func (g *Gate) uncheckable(audit ports.AuditEvent, st Statement) Outcome {
	audit.Decision, audit.Error = "deny_uncheckable", st.Unread.Why
	audit.Statement = truncate(st.text(), 2048)
	g.record(audit)
	g.Log.Warn("statement refused: it cannot be checked", "listener", audit.Listener, "client", audit.Client, "reason", st.Unread.Why)
	return Outcome{Denial: &domain.Denial{Kind: domain.DeniedUncheckable,
		Message: domain.UncheckableMessage(st.Unread.Why, st.Unread.TooLarge)}}
}

// hasRules reports whether the listener has any policy or approval rule
// that is not report-only (report-only rules leave it as if they were
// absent).
func (s *ListenerSettings) hasRules() bool { return domain.Enforces(s.Policies, s.Approvals) }

// unavailable denies a statement that needs approval when the Control Plane
// call failed (fail closed). A refused Sidecar token is said as such, to the
// agent and in the log: retrying does not help until a person fixes it.
func (g *Gate) unavailable(audit ports.AuditEvent, rule string, err error) Outcome {
	audit.Decision, audit.Error = "deny_unavailable", err.Error()
	g.record(audit)
	msg := domain.UnavailableMessage(rule, agentCause(err))
	if errors.Is(err, ports.ErrUnauthorized) {
		msg = domain.TokenRefusedMessage(rule)
		g.Log.Error("statement needs approval but the Control Plane refused the Sidecar token; denied",
			"listener", audit.Listener, "rule", rule, "error", err)
	} else {
		g.Log.Error("statement needs approval but the Control Plane failed; denied", "listener", audit.Listener, "rule", rule, "error", err)
	}
	return Outcome{Denial: &domain.Denial{Kind: domain.DeniedUnavailable, Rule: rule, Message: msg}}
}

// tooLarge denies a statement whose approval request the Control Plane
// refused as too large (ports.ErrTooLarge): a permanent refusal, not an
// outage, so the agent is told not to resend the identical statement.
func (g *Gate) tooLarge(audit ports.AuditEvent, rule string, err error) Outcome {
	audit.Decision, audit.Error = "deny_too_large", err.Error()
	g.record(audit)
	g.Log.Error("statement needs approval but the Control Plane refused the approval request as too large; denied",
		"listener", audit.Listener, "rule", rule, "error", err)
	return Outcome{Denial: &domain.Denial{Kind: domain.DeniedTooLarge, Rule: rule, Message: domain.TooLargeMessage(rule)}}
}

// truncate cuts s to at most n bytes on a UTF-8 boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…(truncated)"
}

// agentCause is the part of a Control Plane failure an agent may read: its
// kind, never the Control Plane's address or answer (those go to the log and
// the audit trail).
func agentCause(err error) string {
	for _, known := range []error{ErrNoControlPlane, ports.ErrUnauthorized, ports.ErrOlder, ports.ErrNotFound} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time"
	}
	return ports.ErrUnavailable.Error()
}

// text is the statement's rendering for the approver: Render's result when
// set, else Display.
func (st *Statement) text() string {
	if st.Render != nil {
		return st.Render()
	}
	return st.Display
}

// memoText makes st.Render run at most once from here on, where the gate
// may ask for the text more than once (rules with a text pattern, report-only
// lines, then the audit trail and the approval request). It costs an
// allocation, so a plain statement goes without.
func (st *Statement) memoText() {
	if r := st.Render; r != nil {
		var shown string
		done := false
		st.Render = func() string {
			if !done {
				shown, done = r(), true
			}
			return shown
		}
	}
}

// recordsAllows reports whether the audit sink keeps plain allows (and so
// their statement text): false without a sink or when the sink says it
// skips them (ports.AllowSkipper).
func (g *Gate) recordsAllows() bool {
	if g.Audit == nil {
		return false
	}
	if sk, ok := g.Audit.(ports.AllowSkipper); ok {
		return !sk.SkipsAllows()
	}
	return true
}

func (g *Gate) record(e ports.AuditEvent) {
	g.Metrics.Statement(e.Listener, e.Decision)
	if g.Audit != nil {
		g.Audit.Record(e)
	}
}
