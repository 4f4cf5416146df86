package mongodb

// A stopped listener drains its sessions (internal/drain, app.Protocol):
// each is closed as soon as it is idle (no command being decided, no reply
// owed), and the ones left at the drain deadline are closed at once. MongoDB
// has no message that ends a connection: the client sees it closed, as when
// a mongod shuts down, and its driver reconnects elsewhere.

// Expire closes s at the drain deadline (drain.Session).
func (s *session) Expire() { s.terminate() }

// StartDrain marks s to close once idle; it closes it now if it is (drain.Session).
func (s *session) StartDrain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining = true
	s.closeIfIdleLocked()
}

// closeIfIdleLocked ends a draining session with no command being decided
// and no reply owed. Called with mu held.
func (s *session) closeIfIdleLocked() {
	if !s.draining || s.terminated || s.busy || s.owed {
		return
	}
	s.terminateLocked()
}

func (s *session) terminate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.terminateLocked()
}

func (s *session) terminateLocked() {
	if s.terminated {
		return
	}
	s.terminated = true
	s.wait.Close()
	s.client.Close()
	s.up.Close()
	s.log.Info("mongodb connection closed: the listener stopped")
}
