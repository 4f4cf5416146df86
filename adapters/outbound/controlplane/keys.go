package controlplane

import (
	"sync"

	"github.com/hoophq/sidecar/ports"
)

// maxEchoedKeys bounds the keys a Client remembers as echoed (one per open
// claim under spend_approval_on: accepted, removed when its settle is
// answered); a set that reaches it is emptied, and the give-backs of the
// claims it held are then tried once, as at a Control Plane without keys.
const maxEchoedKeys = 1 << 16

// keySet is the claim keys whose won claim's answer echoed them, until
// their settle is answered. The zero value is ready; safe for concurrent use.
type keySet struct {
	mu sync.Mutex
	m  map[ports.ClaimKey]struct{}
}

func (s *keySet) add(k ports.ClaimKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= maxEchoedKeys {
		s.m = make(map[ports.ClaimKey]struct{})
	}
	s.m[k] = struct{}{}
}

func (s *keySet) has(k ports.ClaimKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[k]
	return ok
}

func (s *keySet) remove(k ports.ClaimKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
}
