package mongodb

import (
	"context"
	"errors"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/hangup"
)

// errClientGone ends a session whose client hung up while a command of it
// waited for approval: nothing of it is forwarded.
var errClientGone = errors.New("the client hung up while its command waited for approval")

// check asks the gate about st with set, the settings read once for this
// command. The session's identity (the authenticated user), the client's
// address and its return mode (appName) are filled in here. While the gate
// holds the command (wait mode) the client connection is watched: a
// hang-up ends the wait (Outcome.ClientGone), nothing is forwarded, and the
// approval stays as the person leaves it. MongoDB has no message to tell a
// waiting client why it waits; the listener logs it.
//
// A command the rules allow outright takes the gate's fast path
// (app.Listener.CheckAllowed): it cannot wait, so none of that is set up.
func (s *session) check(set *app.ListenerSettings, cmd *command.Command) app.Outcome {
	st := statement(cmd)
	st.Identity, st.Client, st.ReturnMode = s.identity(), s.clientAddr, s.returnMode.Load()
	if s.l.CheckAllowed(set, &st) {
		return app.Outcome{Forward: true}
	}
	st.Canonicalize = cmd.CanonicalBytes // only a held command needs its fingerprint
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var stopWatch func()
	st.OnWait = func(id string) {
		s.log.Info("mongodb command held in wait mode until a person decides", "approval_id", id)
		stopWatch = hangup.Watch(s.cr, s.client.SetReadDeadline, func(error) { cancel(app.ErrClientGone) })
	}
	out := s.l.CheckWith(ctx, set, st)
	if stopWatch != nil {
		stopWatch()
	}
	return out
}
