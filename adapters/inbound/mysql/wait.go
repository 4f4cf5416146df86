package mysql

import (
	"context"
	"errors"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/hangup"
)

// errClientGone ends a session whose client hung up while a statement of it
// waited for approval: nothing of it is forwarded.
var errClientGone = errors.New("the client hung up while its statement waited for approval")

// check asks the gate about st with set, the settings read once for the
// command. The login user is the identity and the current database is part
// of the fingerprint: an approval is for one database. While the gate holds
// the statement (wait mode) the client connection is watched: a hang-up
// ends the wait (Outcome.ClientGone), and so does a KILL QUERY of this
// connection sent through the listener (Outcome.Canceled, threads.go).
//
// A statement the rules allow outright takes the gate's fast path
// (app.Listener.CheckAllowed): it cannot wait, so none of that is set up.
func (s *session) check(set *app.ListenerSettings, st app.Statement) app.Outcome {
	st.Identity, st.Client, st.ReturnMode = s.user, s.clientAddr, s.returnMode
	if s.l.CheckAllowed(set, &st) {
		return app.Outcome{Forward: true}
	}
	st.IdentityValues = map[string][]string{"database": {s.database}}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	s.mu.Lock()
	s.waitCancel = cancel
	s.mu.Unlock()
	var stopWatch func()
	st.OnWait = func(id string) {
		s.log.Info("mysql statement waits for approval", "approval_id", id)
		stopWatch = s.watchHangup(cancel)
	}
	out := s.l.CheckWith(ctx, set, st)
	if stopWatch != nil {
		stopWatch()
	}
	s.mu.Lock()
	s.waitCancel = nil
	s.mu.Unlock()
	if out.Denial != nil && out.Denial.Kind == domain.DeniedShutdown {
		s.mu.Lock()
		s.draining = true // the session ends after this answer
		s.mu.Unlock()
	}
	return out
}

// interrupt ends the wait of a held statement, if any, with cause.
func (s *session) interrupt(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waitCancel != nil {
		s.waitCancel(cause)
	}
}

// watchHangup runs internal/hangup's watch on the client connection while
// the gate holds a statement: a hang-up cancels the wait with
// app.ErrClientGone.
func (s *session) watchHangup(cancel context.CancelCauseFunc) (stop func()) {
	return hangup.Watch(s.cr, s.client.SetReadDeadline, func(err error) {
		s.log.Info("mysql client hung up while its statement waited for approval", "error", err)
		cancel(app.ErrClientGone)
	})
}
