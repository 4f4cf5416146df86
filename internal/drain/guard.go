package drain

import "sync"

// Guard is one session's part of the drain, the same in every protocol:
// once the listener stops (StartDrain) the session closes as soon as it is
// idle, and at the drain deadline (Expire) at once. A session embeds a
// Guard, which makes it a Session, and binds it with Init to what only its
// protocol knows: when it is idle and how it ends. The session's own mutex
// guards the Guard: a method named …Locked is called with it held, the
// others take it.
type Guard struct {
	mu       *sync.Mutex
	idle     func() bool
	end      func()
	draining bool
}

// Init binds g to its session before the session is served. mu is the
// session's mutex. idle, called with mu held, reports whether the session
// has nothing in flight and may close (no statement being handled, no
// answer owed, no transaction open). end, called with mu held, tells the
// client in its protocol's words (within ShutdownWrite) and closes the
// session; it may be called again on a session that already ended, and
// then does nothing.
func (g *Guard) Init(mu *sync.Mutex, idle func() bool, end func()) {
	g.mu, g.idle, g.end = mu, idle, end
}

// StartDrain marks the session to close once idle, and closes it now if it
// is (Session).
func (g *Guard) StartDrain() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.draining = true
	g.CloseIfIdleLocked()
}

// Expire ends the session now: the drain deadline passed (Session).
func (g *Guard) Expire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.end()
}

// MarkDraining marks the session to close the next time it is idle without
// closing it now: a wait that ended because the Sidecar shuts down, whose
// answer the client gets first.
func (g *Guard) MarkDraining() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.draining = true
}

// CloseIfIdleLocked ends a draining session that is idle. The session calls
// it wherever it may have become idle (an answer relayed, a transaction
// ended).
func (g *Guard) CloseIfIdleLocked() {
	if g.draining && g.idle() {
		g.end()
	}
}

// DrainingLocked reports whether the session is marked to close once idle.
func (g *Guard) DrainingLocked() bool { return g.draining }
