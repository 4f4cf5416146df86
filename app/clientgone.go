package app

import (
	"context"
	"errors"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// A wait belongs to its client (docs/architecture.md, "the core's rules"):
// when the ctx an adapter gives Gate.Check ends, the statement's wait ends,
// nothing is claimed or forwarded, and the approval is left as the person
// decided it.

// Causes an adapter gives the ctx of Check (context.WithCancelCause) when it
// ends a statement's wait itself. Any other end of that ctx (an http
// request's or grpc stream's context, cancelled by the server when the
// client leaves) counts as ErrClientGone.
var (
	// ErrClientGone: the client hung up while its statement waited.
	ErrClientGone = errors.New("the client hung up while its statement waited for approval")
	// ErrStatementCanceled: the client cancelled the waiting statement and
	// is still connected.
	ErrStatementCanceled = errors.New("the client cancelled the statement while it waited for approval")
)

// ended answers a statement whose ctx ended before the gate decided: no
// claim, nothing forwarded, the approval a (possibly zero) left as it is.
func (g *Gate) ended(ctx context.Context, audit ports.AuditEvent, rule string, a domain.Approval) Outcome {
	st := a.EffectiveStatus(g.Clock.Now())
	audit.ApprovalID, audit.Status = a.ID, string(st)
	out := Outcome{}
	if errors.Is(context.Cause(ctx), ErrStatementCanceled) {
		audit.Decision, out.Canceled = "wait_canceled", true
	} else {
		audit.Decision, out.ClientGone = "client_gone", true
	}
	g.record(audit)
	g.Log.Info("statement's wait ended by its client; nothing forwarded", "listener", audit.Listener,
		"client", audit.Client, "approval_id", a.ID, "decision", audit.Decision)
	if a.ID == "" {
		out.Denial = &domain.Denial{Kind: domain.DeniedUnavailable, Rule: rule,
			Message: domain.UnavailableMessage(rule, agentCause(ctx.Err()))}
		return out
	}
	out.Denial = &domain.Denial{Kind: domain.DeniedForApproval, ApprovalID: a.ID, Status: st, Rule: rule,
		Message: domain.DenialMessage(a.ID, st, a.RejectionReason, g.WithMCP)}
	return out
}
