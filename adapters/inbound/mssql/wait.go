package mssql

import (
	"fmt"
	"slices"

	"github.com/hoophq/sidecar/adapters/inbound/mssql/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/tds"
)

// unit is what the listener decides as one: a SQLBatch (every statement of
// its text) or an RPC message (every call in it). If any part is held or
// denied, nothing of it is forwarded.
type unit struct {
	parts     []domain.Analysis
	canonical []byte
	render    func() string
	why       string // why a part is UNKNOWN (for the refusal when no rule covers it)
	// uncheckable: the analyzer refused a text as too large or deep to
	// analyse (analyzer.ErrUncheckable): refused even when a rule covers
	// UNKNOWN, since nobody could tell what it does.
	uncheckable bool
	// last is the last text's analysis: with one part, the unit's whole
	// (atomic reads it).
	last analyzer.Result
	// cursorOpen: the unit opens an API server cursor (sp_cursoropen);
	// cursorFetch: it fetches from one (sp_cursorfetch), running no
	// statement. maskPlan pairs them.
	cursorOpen, cursorFetch bool
}

// atomic reports whether the unit is one statement SQL Server runs whole or
// not at all (analyzer.Atomic). Only an approved request's answer under
// spend_approval_on: accepted asks, so it is not worked out per statement.
func (u *unit) atomic() bool { return len(u.parts) == 1 && analyzer.Atomic(u.last) }

// gated reports whether the unit has anything to decide (an RPC of only
// sp_prepare, sp_unprepare or cursor fetches runs no statement).
func (u *unit) gated() bool { return len(u.parts) > 0 }

// decide asks the gate about u, with set, the settings read once for the
// request. A part the analyzer could not read (UNKNOWN: a parse error, a
// text the listener cannot see) is Unread: the gate refuses it unchecked
// when no rule covers it (domain.FailsClosed, docs/mssql-listener.md,
// "Fail closed").
func (s *session) decide(set *app.ListenerSettings, u *unit) app.Outcome {
	unknown := false
	for _, p := range u.parts {
		unknown = unknown || slices.Contains(p.Actions, domain.ActionUnknown)
	}
	st := app.Statement{Canonical: u.canonical, Render: u.render, Analysis: app.Deciding(set, u.parts)}
	if u.uncheckable || unknown {
		st.Unread = domain.Unread{Why: u.why, TooLarge: u.uncheckable}
		if st.Unread.Why == "" {
			st.Unread.Why = "the T-SQL analyzer could not read it"
		}
	}
	return s.check(set, st)
}

// check asks the gate about st with set, through app.Listener.Decide with
// the session's Hold (holdFor). The LOGIN7 user is the identity and the
// current database is part of the fingerprint: an approval is for one
// database.
func (s *session) check(set *app.ListenerSettings, st app.Statement) app.Outcome {
	st.Identity, st.Client, st.ReturnMode = s.user, s.clientAddr, s.returnMode
	st.IdentityValues = map[string][]string{"database": {s.currentDB()}}
	return s.l.Decide(set, st, s.holdFor())
}

// holdFor is what the session tells app.Listener.Decide, made once. The
// reader goes on reading the client while a statement waits (attention.go),
// so no watch is needed: a hang-up ends the wait through s.wait
// (Outcome.ClientGone), and so does an Attention (Outcome.Canceled), also
// one that came while the request was still being read (Pending). A wait
// ended by shutdown leaves the session draining, so it ends after its
// answer.
func (s *session) holdFor() *app.Hold {
	if s.holdSpec == nil {
		s.holdSpec = &app.Hold{Handle: &s.wait,
			OnWait: func(id, _ string) { s.log.Info("mssql statement waits for approval", "approval_id", id) },
			Pending: func() error {
				s.mu.Lock()
				defer s.mu.Unlock()
				if s.attnCancel {
					return app.ErrStatementCanceled
				}
				return nil
			},
			OnShutdown: func(*domain.Denial) {
				s.mu.Lock()
				s.draining = true // the session ends after this answer
				s.mu.Unlock()
			}}
	}
	return s.holdSpec
}

// decideAndRun decides u and, when the gate lets it through, forwards m and relays
// its answer; doneTok is the DONE token of the listener's own answer
// (DONEPROC for an RPC). after, when set, sees the upstream's answer.
func (s *session) decideAndRun(set *app.ListenerSettings, u *unit, m tds.Message, doneTok byte, o exchangeOpts, after func(response)) error {
	var out app.Outcome
	if u.gated() {
		out = s.decide(set, u)
		if !out.Forward {
			return s.deny(out, doneTok)
		}
	}
	if out.Ticket != nil {
		o.onEnd = func(r response) { out.Ticket.GiveBack(proof(r, u.atomic)) }
		o.onSent = out.Ticket.Sent
	}
	defer out.Ticket.Spend() // a path that settled nothing spends (no-op after onEnd)
	if set.Masking != nil {
		o.mask = s.maskPlan(set, u)
	}
	resp, err := s.exchange(m, o)
	if o.mask != nil && !resp.aborted { // aborted: the relay may still be counting on it
		s.l.Masked(set, s.clientAddr, s.user, o.mask, resp.withheld)
	}
	if err == nil && after != nil {
		after(resp)
	}
	return err
}

// maskPlan returns the masking of the results of u, forwarded with set
// (app.MaskPlan): a rule's match applies when it matches any statement of
// u; a unit of no statement (sp_cursorfetch, sp_prepare) gets the rules
// that match every statement. A unit that uses a T-SQL cursor (FETCH NEXT
// FROM c names no table) is matched as the queries of every cursor the
// session declared too, so a rule on the table masks what FETCH returns.
func (s *session) maskPlan(set *app.ListenerSettings, u *unit) *masking.Plan {
	var a domain.Analysis
	if len(u.parts) > 0 {
		a = u.parts[0]
		if len(u.parts) > 1 {
			a.Parts = u.parts
		}
	}
	cursor := u.cursorFetch
	for _, p := range u.parts {
		if !slices.Contains(p.Actions, "CURSOR") && !u.cursorOpen {
			continue
		}
		cursor = true
		if len(p.Targets) > 0 || len(p.Functions) > 0 { // DECLARE … CURSOR FOR query, sp_cursoropen
			var read domain.Analysis
			if s.cursorReads != nil {
				read = *s.cursorReads
			}
			merged := domain.Merge(read, p)
			s.cursorReads = &merged
		}
	}
	if cursor && s.cursorReads != nil {
		// masking.Set.For matches a itself, then each part: a unit of one
		// statement needs no copy of it among the parts.
		a.Parts = append(slices.Clip(a.Parts), *s.cursorReads)
	}
	st := app.Statement{Render: u.render, Analysis: a, Identity: s.user, Client: s.clientAddr,
		IdentityValues: map[string][]string{"database": {s.currentDB()}}}
	return app.MaskPlan(set, &st)
}

// proof returns the proof that nothing of an approved request ran
// (domain.NothingRan; spend_approval_on: accepted), or the zero value, which
// spends the approval. atomic tells whether the request is one atomic
// statement, asked only when the answer leaves it open. It is a proof
// only when nothing of the request can have run: the client cancelled it
// before it was forwarded, or the upstream refused a request of one atomic
// statement (analyzer.Atomic) before any of it completed. The answer does
// not tell more: SQL Server goes on after most errors, SET NOCOUNT ON drops
// the DONEINPROC of each statement of an sp_executesql or a procedure (a
// DELETE before a failing statement leaves no trace), an Attention
// discards what was not sent yet (a statement that completed just before
// it reports only DONE(ATTN)), an answer cut off may have run, and an
// error raised inside a module (an AFTER trigger's RAISERROR without a
// rollback) leaves the statement's own change in place.
func proof(r response, atomic func() bool) domain.NothingRan {
	switch {
	case r.unsent:
		return domain.NotSent("cancelled by the client's Attention before it was forwarded")
	case r.aborted, r.ran, r.attn, r.inProc, !r.failed, r.lost:
		return domain.NothingRan{}
	case !atomic():
		return domain.NothingRan{}
	}
	return domain.RefusedBeforeRun(fmt.Sprintf("ERROR %d before any statement completed", r.errNumber))
}

// deny answers a request the gate did not forward: nothing for a client
// that hung up, DONE(ATTN) for one that cancelled the wait (sent when the
// request ends), else the denial's ERROR.
func (s *session) deny(out app.Outcome, doneTok byte) error {
	if out.ClientGone {
		return app.ErrClientGone
	}
	if out.Canceled {
		s.mu.Lock()
		s.attnCancel = true // idle answers DONE(ATTN)
		s.mu.Unlock()
		return nil
	}
	return s.refuse(denialError(out.Denial), doneTok)
}

// refuse answers a request with e and runs nothing of it. Inside a
// transaction the refusal dooms the transaction (transaction.go).
func (s *session) refuse(e sqlError, doneTok byte) error {
	tx := s.txDesc()
	inTx := tx != 0
	if inTx {
		s.doomed, s.doomedTx = true, tx
	}
	return s.writeClient(errorReply(e, doneTok, inTx))
}
