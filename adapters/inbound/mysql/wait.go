package mysql

import (
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/hangup"
)

// check asks the gate about st with set, the settings read once for the
// command, through app.Listener.Decide with the session's Hold (holdFor).
// The login user is the identity and the current database is part of the
// fingerprint: an approval is for one database.
func (s *session) check(set *app.ListenerSettings, st app.Statement) app.Outcome {
	st.Identity, st.Client, st.ReturnMode = s.user, s.clientAddr, s.returnMode
	if s.idValuesDB != s.database || s.idValues == nil { // made again only when USE changed it
		s.idValues, s.idValuesDB = map[string][]string{"database": {s.database}}, s.database
	}
	st.IdentityValues = s.idValues
	return s.l.Decide(set, st, s.holdFor())
}

// holdFor is what the session tells app.Listener.Decide, made once after
// login: while a statement waits the client connection is watched, so a
// hang-up ends the wait (Outcome.ClientGone); a KILL QUERY of this
// connection sent through the listener ends it through s.wait
// (Outcome.Canceled, threads.go); a wait ended by shutdown leaves the
// session draining, so it ends after its answer.
func (s *session) holdFor() *app.Hold {
	if s.holdSpec == nil {
		s.holdSpec = &app.Hold{Handle: &s.wait, Watch: hangup.Watcher(s.cr, s.client.SetReadDeadline),
			OnWait:     func(id, _ string) { s.log.Info("mysql statement waits for approval", "approval_id", id) },
			OnShutdown: func(*domain.Denial) { s.MarkDraining() }} // the session ends after this answer
	}
	return s.holdSpec
}
