package postgres

import (
	"bufio"
	"context"
	"errors"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
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

// hangupPoll is the deadline that stops a hang-up watch.
var hangupPoll = time.Unix(1, 0)

// watchHangup watches the client connection while the gate holds a
// statement: the session's reader is idle then, so a goroutine peeks at it.
// Bytes the client pipelines meanwhile stay buffered, in order, for the
// session; an end of the connection (EOF, reset, a TLS close) cancels the
// wait with app.ErrClientGone, as PostgreSQL ends a session whose socket
// reads EOF. Once the reader's buffer (32 KiB) is full of pipelined
// messages the watch stops: TCP holds the rest, and a hang-up after that is
// seen when the wait ends. stop ends the watch (a past read deadline
// interrupts the peek, as net/http ends its background read) and returns
// once the reader is the session's again.
func (s *session) watchHangup(cancel context.CancelCauseFunc) (stop func()) {
	done := make(chan struct{})
	var stopping atomic.Bool
	go func() {
		defer close(done)
		for !stopping.Load() {
			n := s.cr.Buffered()
			if n >= s.cr.Size() {
				return
			}
			_, err := s.cr.Peek(n + 1)
			switch {
			case err == nil:
			case stopping.Load(), errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, bufio.ErrBufferFull):
				return
			default:
				s.log.Info("postgres client hung up while its statement waited for approval", "error", err)
				cancel(app.ErrClientGone)
				return
			}
		}
	}()
	return func() {
		stopping.Store(true)
		s.client.SetReadDeadline(hangupPoll)
		<-done
		s.client.SetReadDeadline(time.Time{})
	}
}
