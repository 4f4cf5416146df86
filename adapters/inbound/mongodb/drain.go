package mongodb

import "sync"

// drainer holds the sessions of one Serve call, so that a stopped listener
// can drain them (app.Protocol): once it stops, each session is closed as
// soon as it is idle (no command being decided, no reply owed), and the
// ones left at the drain deadline are closed at once. MongoDB has no
// message that ends a connection: the client sees it closed, as when a
// mongod shuts down, and its driver reconnects elsewhere.
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
		s.terminate()
	}
}

// startDrain marks s to close once idle; it closes it now if it is.
func (s *session) startDrain() {
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
	s.client.Close()
	s.up.Close()
	s.log.Info("mongodb connection closed: the listener stopped")
}
