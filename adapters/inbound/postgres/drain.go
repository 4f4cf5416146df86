package postgres

import (
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/domain"
)

// drainer holds the sessions of one Serve call, so that a stopped listener
// can drain them (app.Protocol): once it stops, each session is closed as
// soon as it is idle (no statement in flight, no transaction open), and the
// ones left at the drain deadline are closed at once. Either way the client
// gets FATAL 57P01 admin_shutdown first, as from a PostgreSQL server that
// shuts down.
type drainer struct {
	mu       sync.Mutex
	sessions map[*session]struct{}
	draining bool
}

func newDrainer() *drainer { return &drainer{sessions: map[*session]struct{}{}} }

// add registers s; once draining, s is marked to close when idle.
func (d *drainer) add(s *session) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sessions[s] = struct{}{}
	if d.draining {
		s.startDrain()
	}
}

func (d *drainer) remove(s *session) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.sessions, s)
}

// start marks every session to close when idle (and closes the idle ones).
func (d *drainer) start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.draining = true
	for s := range d.sessions {
		s.startDrain()
	}
}

// expire closes every session left.
func (d *drainer) expire() {
	d.mu.Lock()
	list := make([]*session, 0, len(d.sessions))
	for s := range d.sessions {
		list = append(list, s)
	}
	d.mu.Unlock()
	for _, s := range list {
		s.terminate(adminShutdown(""))
	}
}

// startDrain marks s to close once idle; it closes it now if it is.
func (s *session) startDrain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining = true
	s.closeIfIdleLocked()
}

// closeIfIdleLocked ends a draining session that has nothing in flight:
// logged in, no client message being handled, no extended-protocol unit
// begun without its Sync, no answer owed, and no transaction open (a
// transaction gets until the drain deadline to end). Called with mu held.
func (s *session) closeIfIdleLocked() {
	if !s.draining || s.terminated || !s.authed.Load() || s.busy || s.midUnit || len(s.fifo) > 0 || s.txStatus != 'I' {
		return
	}
	s.terminateLocked(adminShutdown(""))
}

// terminate sends e (a FATAL ErrorResponse) and closes both connections.
func (s *session) terminate(e *pgproto3.ErrorResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.terminateLocked(e)
}

func (s *session) terminateLocked(e *pgproto3.ErrorResponse) {
	if s.terminated {
		return
	}
	s.terminated = true
	s.client.SetWriteDeadline(time.Now().Add(time.Second))
	s.cw.Write(encode(e))
	s.cw.Flush()
	s.client.Close()
	s.up.Close()
	s.log.Info("postgres connection closed: the listener stopped", "code", e.Code)
}

// adminShutdown is what PostgreSQL sends to sessions when it shuts down:
// FATAL 57P01 admin_shutdown, with detail when there is some.
func adminShutdown(detail string) *pgproto3.ErrorResponse {
	e := fatal(CodeAdminShutdown, "terminating connection due to administrator command")
	e.Detail = detail
	return e
}

// shutdownError is the FATAL for a statement whose wait for a person ended
// because the Sidecar shuts down: 57P01, the approval in the detail, and
// the denial's text as the hint.
func shutdownError(d *domain.Denial) *pgproto3.ErrorResponse {
	status := string(d.Status)
	if status == "" {
		status = "unknown"
	}
	e := adminShutdown(fmt.Sprintf("approval id: %s; approval status: %s; approval rule: %s", d.ApprovalID, status, d.Rule))
	e.Hint = d.Message
	return e
}
