package mysql

import (
	"sync"
)

// drainer holds the sessions of one Serve call, so that a stopped listener
// can drain them (app.Protocol): once it stops, each session is closed as
// soon as it is idle (no command in flight, no transaction open), and the
// ones left at the drain deadline are closed at once. Either way the client
// gets ERR 1053 ER_SERVER_SHUTDOWN first, as from a MySQL server that shuts
// down.
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
		s.mu.Lock()
		s.terminateLocked()
		s.mu.Unlock()
	}
}

// startDrain marks s to close once idle, and closes it now if it is.
func (s *session) startDrain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining = true
	if !s.busy && !s.idleInTx {
		s.terminateLocked()
	}
}

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
	if s.draining && !s.idleInTx {
		s.terminateLocked()
	}
	return !s.closed
}

// terminateLocked ends the session with ER_SERVER_SHUTDOWN (under mu). It
// writes to the connection itself, not the session's buffered writer,
// which the reader owns.
func (s *session) terminateLocked() {
	if s.closed {
		return
	}
	s.closed = true
	writePacket(s.client, 0, errShutdown.with("hoop sidecar: the listener is shutting down").encode())
	s.client.Close()
	s.up.Close()
}
