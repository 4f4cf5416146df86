package controlplane

import (
	"sync"

	"github.com/hoophq/sidecar/ports"
)

// maxEchoedKeys bounds the keys a Client remembers as echoed (one per open
// claim under spend_approval_on: accepted); past it the oldest is dropped,
// and its give-back is tried once.
const maxEchoedKeys = 1 << 16

// keySet is the claim keys whose won claim's answer echoed them, until
// their settle is answered. The zero value is ready; safe for concurrent use.
type keySet struct {
	mu    sync.Mutex
	m     map[ports.ClaimKey]struct{}
	order []ports.ClaimKey
}

func (s *keySet) add(k ports.ClaimKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[ports.ClaimKey]struct{})
	}
	if _, ok := s.m[k]; ok {
		return
	}
	s.m[k] = struct{}{}
	s.order = append(s.order, k)
	for len(s.m) > maxEchoedKeys {
		delete(s.m, s.order[0])
		s.order = s.order[1:]
	}
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
	if _, ok := s.m[k]; !ok {
		return
	}
	delete(s.m, k)
	for i, o := range s.order {
		if o == k {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}
