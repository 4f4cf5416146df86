package postgres

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/hangup"
)

// check asks the gate about st with set, the settings read once for the
// whole unit (a reload in between cannot pair one rule set's reading with
// another's decision), through app.Listener.Decide with the session's
// Hold (holdFor). Anything forwarded earlier is flushed first, since the gate
// may hold st for a while (wait mode).
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
	return s.l.Decide(set, st, s.holdFor())
}

// holdFor is what the session tells app.Listener.Decide, made once: while a
// statement waits the client is told why (a NoticeResponse) and its
// connection is watched, so a hang-up ends the wait (Outcome.ClientGone);
// a CancelRequest ends it through s.wait (Outcome.Canceled); a wait ended
// by shutdown ends the session as PostgreSQL would (FATAL 57P01; the
// caller's writes then fail on the closed connection).
func (s *session) holdFor() *app.Hold {
	if s.holdSpec == nil {
		s.holdSpec = &app.Hold{Handle: &s.wait, OnWait: s.notifyWait,
			Watch:      hangup.Watcher(s.cr, s.client.SetReadDeadline),
			OnShutdown: func(d *domain.Denial) { s.terminate(shutdownError(d)) }}
	}
	return s.holdSpec
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
