package postgres

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/drain"
)

// A stopped listener drains its sessions (internal/drain, app.Protocol):
// each is closed as soon as it is idle (no statement in flight, no
// transaction open), and the ones left at the drain deadline are closed at
// once. Either way the client gets FATAL 57P01 admin_shutdown first, as from
// a PostgreSQL server that shuts down.

// idleLocked reports whether s has nothing in flight (drain.Guard): logged
// in, no client message being handled, no extended-protocol unit begun
// without its Sync, no answer owed, and no transaction open (a transaction
// gets until the drain deadline to end). Called with mu held.
func (s *session) idleLocked() bool {
	return s.authed.Load() && !s.busy && !s.midUnit && len(s.fifo) == 0 && s.txStatus == 'I'
}

// shutdownLocked ends s with FATAL 57P01 (drain.Guard). Called with mu held.
func (s *session) shutdownLocked() { s.terminateLocked(adminShutdown("")) }

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
	s.client.SetWriteDeadline(time.Now().Add(drain.ShutdownWrite))
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
