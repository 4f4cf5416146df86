package mongodb

import (
	"errors"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/hangup"
)

// errClientGone ends a session whose client hung up while a command of it
// waited for approval: nothing of it is forwarded.
var errClientGone = errors.New("the client hung up while its command waited for approval")

// check asks the gate about st with set, the settings read once for this
// command, through app.Listener.Decide with the session's Hold (holdFor).
// The session's identity (the authenticated user), the client's address and
// its return mode (appName) are filled in here; the statement is returned
// with the outcome (masking plans its reply with it).
func (s *session) check(set *app.ListenerSettings, cmd *command.Command) (app.Outcome, app.Statement) {
	st := statement(cmd)
	st.Identity, st.Client, st.ReturnMode = s.identity(), s.clientAddr, s.returnMode.Load()
	st.Canonicalize = cmd.CanonicalBytes // called by the gate only for a held command
	return s.l.Decide(set, st, s.holdFor()), st
}

// holdFor is what the session tells app.Listener.Decide, made once: while a
// command waits the client connection is watched, so a hang-up ends the
// wait (Outcome.ClientGone), nothing is forwarded, and the approval stays
// as the person leaves it. MongoDB has no message to tell a waiting client
// why it waits; the listener logs it. A wait ended by shutdown leaves the
// session draining, so it closes once its reply is written.
func (s *session) holdFor() *app.Hold {
	if s.holdSpec == nil {
		s.holdSpec = &app.Hold{Handle: &s.wait, Watch: hangup.Watcher(s.cr, s.client.SetReadDeadline),
			OnWait: func(id, _ string) {
				s.log.Info("mongodb command held in wait mode until a person decides", "approval_id", id)
			},
			OnShutdown: func(*domain.Denial) {
				s.mu.Lock()
				s.draining = true
				s.mu.Unlock()
			}}
	}
	return s.holdSpec
}
