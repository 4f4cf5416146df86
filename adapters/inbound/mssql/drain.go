package mssql

import (
	"time"

	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/tds"
)

// A stopped listener drains its sessions (internal/drain, app.Protocol):
// each is closed as soon as it is idle (no request in flight, no
// transaction open), and the ones left at the drain deadline are closed at
// once. Either way the client gets ERROR 6005 "SHUTDOWN is in progress"
// first.

// Expire closes s at the drain deadline with ERROR 6005 (drain.Session).
func (s *session) Expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.terminateLocked()
}

// StartDrain marks s to close once idle, and closes it now if it is
// (drain.Session).
func (s *session) StartDrain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining = true
	if s.state == stIdle && s.tx == 0 {
		s.terminateLocked()
	}
}

// terminateLocked ends the session with ERROR 6005 (under mu). The write
// has a deadline, so a client that reads nothing cannot hold the drain.
func (s *session) terminateLocked() {
	if s.closed {
		return
	}
	s.closed = true
	s.wait.Close()
	s.cond.Broadcast()
	s.client.SetWriteDeadline(time.Now().Add(drain.ShutdownWrite))
	go func() {
		// Outside mu: the relay may hold the client writer while it waits
		// for mu; the deadline above ends any write in progress.
		s.writeClient(errorReply(errShutdown.with("hoop sidecar: the listener is shutting down"), tds.TokenDone, false))
		s.close()
	}()
}
