package postgres

import (
	"encoding/hex"
	"strconv"
	"sync"
)

// cancelRegistry maps the cancel keys that upstream backends handed out
// (BackendKeyData, passed to clients unchanged) to the sessions that hold
// them, so a CancelRequest on a new connection reaches the right upstream.
type cancelRegistry struct {
	mu sync.Mutex
	m  map[string]*session
}

func newCancelRegistry() *cancelRegistry { return &cancelRegistry{m: map[string]*session{}} }

func cancelKey(pid uint32, secret []byte) string {
	return strconv.FormatUint(uint64(pid), 10) + ":" + hex.EncodeToString(secret)
}

func (r *cancelRegistry) add(k string, s *session) {
	r.mu.Lock()
	r.m[k] = s
	r.mu.Unlock()
}

func (r *cancelRegistry) remove(k string, s *session) {
	r.mu.Lock()
	if r.m[k] == s {
		delete(r.m, k)
	}
	r.mu.Unlock()
}

func (r *cancelRegistry) lookup(k string) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[k]
}
