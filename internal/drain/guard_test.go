package drain_test

import (
	"sync"
	"testing"

	"github.com/hoophq/sidecar/internal/drain"
)

// guarded is a session whose idleness the test sets; ends counts how often
// the Guard ended it.
type guarded struct {
	drain.Guard
	mu   sync.Mutex
	busy bool
	ends int
}

func newGuarded() *guarded {
	s := &guarded{}
	s.Guard.Init(&s.mu, func() bool { return !s.busy }, func() { s.ends++ })
	return s
}

func (s *guarded) ended() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ends
}

// An idle session closes when the drain starts; a busy one only once it is
// idle again, and not before the drain started.
func TestGuardClosesOnceIdleAfterTheDrainStarts(t *testing.T) {
	idle := newGuarded()
	idle.StartDrain()
	if idle.ended() != 1 {
		t.Fatalf("idle session: ended %d times at StartDrain, want 1", idle.ended())
	}

	busy := newGuarded()
	busy.mu.Lock()
	busy.busy = true
	busy.CloseIfIdleLocked() // not draining: nothing
	busy.mu.Unlock()
	busy.StartDrain()
	if busy.ended() != 0 {
		t.Fatal("busy session ended at StartDrain")
	}
	busy.mu.Lock()
	busy.busy = false
	busy.CloseIfIdleLocked()
	busy.mu.Unlock()
	if busy.ended() != 1 {
		t.Fatalf("busy session: ended %d times once idle, want 1", busy.ended())
	}
}

// Expire ends a session whatever it is doing; MarkDraining closes nothing
// now, but the next idle moment does.
func TestGuardExpireAndMarkDraining(t *testing.T) {
	s := newGuarded()
	s.busy = true
	s.Expire()
	if s.ended() != 1 {
		t.Fatalf("Expire: ended %d times, want 1", s.ended())
	}

	m := newGuarded()
	m.MarkDraining()
	m.mu.Lock()
	draining := m.DrainingLocked()
	m.mu.Unlock()
	if !draining || m.ended() != 0 {
		t.Fatalf("MarkDraining: draining %v, ended %d; want true, 0", draining, m.ended())
	}
	m.mu.Lock()
	m.CloseIfIdleLocked()
	m.mu.Unlock()
	if m.ended() != 1 {
		t.Fatalf("after MarkDraining, idle: ended %d times, want 1", m.ended())
	}
}
