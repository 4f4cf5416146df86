package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/hangup"
)

// errClientGone ends a session whose client hung up while a statement of it
// waited for approval: nothing of it, or after it, is forwarded.
var errClientGone = errors.New("the client hung up while its statement waited for approval")

// check asks the gate about st with set, the settings read once for the
// whole unit (a reload in between cannot pair one rule set's reading with
// another's decision). Anything forwarded earlier is flushed first, since
// the gate may hold st for a while (wait mode). While it waits, the client
// is told why (a NoticeResponse) and its connection is watched: a hang-up
// ends the wait (Outcome.ClientGone), so does a CancelRequest
// (Outcome.Canceled).
func (s *session) check(set *app.ListenerSettings, st app.Statement) app.Outcome {
	if err := s.uw.Flush(); err != nil {
		s.log.Debug("flush to upstream failed", "error", err)
	}
	if s.identityValues == nil { // per connection, not per statement (read only by the gate)
		s.clientAddr = s.client.RemoteAddr().String()
		// The same text on another database is another statement.
		s.identityValues = map[string][]string{"database": {s.database}}
	}
	st.Identity, st.Client, st.ReturnMode = s.user, s.clientAddr, s.returnMode.Load()
	st.IdentityValues = s.identityValues
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	s.cancelMu.Lock()
	s.waitCancel = cancel
	s.cancelMu.Unlock()
	var stopWatch func()
	st.OnWait = func(id string) {
		s.notifyWait(id, set.Name)
		stopWatch = s.watchHangup(cancel)
	}
	out := s.l.CheckWith(ctx, set, st)
	if stopWatch != nil {
		stopWatch()
	}
	s.cancelMu.Lock()
	s.waitCancel = nil
	s.cancelMu.Unlock()
	if out.Denial != nil && out.Denial.Kind == domain.DeniedShutdown {
		// The wait ended because the Sidecar shuts down: end the session as
		// PostgreSQL would (the caller's writes then fail on the closed
		// connection).
		s.terminate(shutdownError(out.Denial))
	}
	return out
}

// cancelWait ends the wait of a held statement, if any, with cause
// (app.ErrStatementCanceled for a CancelRequest, app.ErrClientGone when the
// connection ended).
func (s *session) cancelWait(cause error) {
	s.cancelMu.Lock()
	defer s.cancelMu.Unlock()
	if s.waitCancel != nil {
		s.waitCancel(cause)
	}
}

// notifyWait tells the client that its statement waits for a person: a
// NoticeResponse (which PostgreSQL allows at any time between messages), so
// psql prints it while the statement hangs.
func (s *session) notifyWait(id, listener string) {
	n := &pgproto3.NoticeResponse{Severity: "NOTICE", SeverityUnlocalized: "NOTICE", Code: "00000",
		Message: "statement held for approval " + id + "; waiting for a person to approve or reject it",
		Detail:  "approval id: " + id + "; listener: " + listener,
		Hint:    "A person decides in the Control Plane; the statement then runs, or fails with the decision. Cancel (Ctrl+C) to stop waiting; the approval request stays."}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.cw.Write(encode(n)); err == nil {
		s.cw.Flush()
	}
}

// watchHangup runs internal/hangup's watch on the client connection while
// the gate holds a statement: a hang-up cancels the wait with
// app.ErrClientGone.
func (s *session) watchHangup(cancel context.CancelCauseFunc) (stop func()) {
	return hangup.Watch(s.cr, s.client.SetReadDeadline, func(err error) {
		s.log.Info("postgres client hung up while its statement waited for approval", "error", err)
		cancel(app.ErrClientGone)
	})
}
