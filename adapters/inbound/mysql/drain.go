package mysql

import (
	"time"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/internal/drain"
)

// A stopped listener drains its sessions (internal/drain, app.Protocol):
// each is closed as soon as it is idle (no command in flight, no transaction
// open), and the ones left at the drain deadline are closed at once. Either
// way the client gets ERR 1053 ER_SERVER_SHUTDOWN first, as from a MySQL
// server that shuts down.

// idleLocked reports whether s may close while draining (drain.Guard): no
// command in flight, no transaction open. Called with mu held.
func (s *session) idleLocked() bool { return !s.busy && !s.idleInTx }

// setBusy marks a command in flight (the reader got its first bytes).
func (s *session) setBusy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = true
}

// idle marks the session idle between commands; it returns false when the
// session must end (it drains and no transaction is open, or it was closed).
func (s *session) idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy, s.idleInTx = false, s.inTransaction()
	s.CloseIfIdleLocked()
	return !s.closed
}

// terminateLocked ends the session with ER_SERVER_SHUTDOWN (under mu). It
// writes to the connection itself, not the session's buffered writer,
// which the reader owns, within drain.ShutdownWrite: a client that stopped
// reading holds mu (and its session) no longer than that.
func (s *session) terminateLocked() {
	if s.closed {
		return
	}
	s.closed = true
	s.wait.Close()
	s.client.SetWriteDeadline(time.Now().Add(drain.ShutdownWrite))
	wire.Write(s.client, 0, errShutdown.With("hoop sidecar: the listener is shutting down").Encode())
	s.client.Close()
	s.up.Close()
}
