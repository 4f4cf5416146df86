package mysql

import (
	"strconv"
	"sync"

	"github.com/hoophq/sidecar/app"
)

// threads maps the connection ids clients see to sessions. The listener
// gives each client its upstream connection's own thread id (startup.go),
// so `KILL QUERY <id>` sent through any listener reaches the right
// upstream query unchanged, and CONNECTION_ID() agrees with the process
// list. A KILL [QUERY | CONNECTION] of a connection whose statement waits
// for approval in this process ends that wait too (nothing is running
// upstream for it; KILL CONNECTION then ends the connection upstream).
type threads struct {
	mu sync.Mutex
	m  map[string]*session
}

func newThreads() *threads { return &threads{m: map[string]*session{}} }

func threadKey(upstream string, id uint64) string { return upstream + "#" + strconv.FormatUint(id, 10) }

func (t *threads) add(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m[threadKey(s.upstreamAddr, uint64(s.threadID))] = s
}

func (t *threads) remove(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := threadKey(s.upstreamAddr, uint64(s.threadID))
	if t.m[k] == s {
		delete(t.m, k)
	}
}

// interrupt ends the wait for approval of connection id on upstream, if it
// has one (app.ErrStatementCanceled: ERR 1317, as for a killed query).
func (t *threads) interrupt(upstream string, id uint64) {
	t.mu.Lock()
	s := t.m[threadKey(upstream, id)]
	t.mu.Unlock()
	if s != nil {
		s.wait.Interrupt(app.ErrStatementCanceled)
	}
}
