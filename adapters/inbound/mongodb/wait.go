package mongodb

import (
	"bufio"
	"context"
	"errors"
	"os"
	"sync/atomic"
	"time"

	"github.com/hoophq/sidecar/app"
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
func (s *session) check(set *app.ListenerSettings, st app.Statement) app.Outcome {
	st.Identity, st.Client, st.ReturnMode = s.identity(), s.client.RemoteAddr().String(), s.returnMode.Load()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var stopWatch func()
	st.OnWait = func(id string) {
		s.log.Info("mongodb command held in wait mode until a person decides", "approval_id", id)
		stopWatch = watchHangup(s.cr, s.client.SetReadDeadline, cancel)
	}
	out := s.l.CheckWith(ctx, set, st)
	if stopWatch != nil {
		stopWatch()
	}
	return out
}

// hangupPoll is the past deadline that stops a hang-up watch.
var hangupPoll = time.Unix(1, 0)

// watchHangup watches the client connection while the gate holds a
// command: the session's reader is idle then, so a goroutine peeks at it.
// Bytes the client sends meanwhile stay buffered for the session; an end of
// the connection cancels the wait with app.ErrClientGone. stop ends the
// watch (a past read deadline interrupts the peek) and returns once the
// reader is the session's again.
func watchHangup(r *bufio.Reader, setDeadline func(time.Time) error, cancel context.CancelCauseFunc) (stop func()) {
	done := make(chan struct{})
	var stopping atomic.Bool
	go func() {
		defer close(done)
		for !stopping.Load() {
			n := r.Buffered()
			if n >= r.Size() {
				return
			}
			_, err := r.Peek(n + 1)
			switch {
			case err == nil:
			case stopping.Load(), errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, bufio.ErrBufferFull):
				return
			default:
				cancel(app.ErrClientGone)
				return
			}
		}
	}()
	return func() {
		stopping.Store(true)
		setDeadline(hangupPoll)
		<-done
		setDeadline(time.Time{})
	}
}
