package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"sync"
)

// Supervisor runs the listeners: it binds each one's address, hands it to its
// protocol's Serve, and on reload applies a new set of settings without
// dropping live connections (a listener whose protocol and address are
// unchanged only gets its new rules; a moved or removed one stops accepting
// and its connections drain).
type Supervisor struct {
	core      *Core
	protocols map[string]Protocol
	log       *slog.Logger

	mu      sync.Mutex
	running map[string]*runningListener
	wg      sync.WaitGroup
}

type runningListener struct {
	l      *Listener
	ln     net.Listener
	cancel context.CancelFunc
}

// NewSupervisor returns a Supervisor serving the given protocols.
func NewSupervisor(core *Core, protocols []Protocol, log *slog.Logger) *Supervisor {
	m := map[string]Protocol{}
	for _, p := range protocols {
		m[p.Name()] = p
	}
	return &Supervisor{core: core, protocols: m, log: log, running: map[string]*runningListener{}}
}

// Protocols returns the names of the protocols served, sorted.
func (s *Supervisor) Protocols() []string {
	out := make([]string, 0, len(s.protocols))
	for n := range s.protocols {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Apply makes the running listeners match settings. At startup a bind
// failure returns an error naming the listener (the Sidecar then stops); on a
// reload the same error leaves the other listeners applied and the failed
// one as it was.
func (s *Supervisor) Apply(settings []ListenerSettings) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := map[string]bool{}
	var errs []error
	for _, ls := range settings {
		want[ls.Name] = true
		cur := s.running[ls.Name]
		if cur != nil && cur.l.Settings().Protocol == ls.Protocol && cur.l.Settings().Listen == ls.Listen {
			cur.l.Update(ls)
			continue
		}
		if cur != nil {
			s.stop(ls.Name, cur)
		}
		if err := s.start(ls); err != nil {
			errs = append(errs, err)
		}
	}
	for name, cur := range s.running {
		if !want[name] {
			s.stop(name, cur)
		}
	}
	return errors.Join(errs...)
}

func (s *Supervisor) start(ls ListenerSettings) error {
	p, ok := s.protocols[ls.Protocol]
	if !ok {
		return fmt.Errorf("listener %s: protocol %q is not served by this binary", ls.Name, ls.Protocol)
	}
	ln, err := net.Listen("tcp", ls.Listen)
	if err != nil {
		return fmt.Errorf("listener %s: bind %s: %w", ls.Name, ls.Listen, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := s.core.Listener(ls)
	s.running[ls.Name] = &runningListener{l: l, ln: ln, cancel: cancel}
	s.log.Info("listener started", "listener", ls.Name, "protocol", ls.Protocol, "listen", ln.Addr().String(),
		"upstream", ls.Upstream, "mode", string(ls.Mode), "spend_approval_on", string(ls.SpendOn))
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := p.Serve(ctx, ln, l); err != nil && ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
			s.log.Error("listener stopped with an error", "listener", ls.Name, "error", err)
		}
	}()
	return nil
}

func (s *Supervisor) stop(name string, r *runningListener) {
	r.cancel()
	_ = r.ln.Close()
	delete(s.running, name)
	s.log.Info("listener stopped accepting; live connections drain", "listener", name)
}

// Addr returns the bound address of a running listener ("" if none).
func (s *Supervisor) Addr(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.running[name]; r != nil {
		return r.ln.Addr().String()
	}
	return ""
}

// Count returns how many listeners are running.
func (s *Supervisor) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.running)
}

// StopAll stops every listener from accepting (shutdown).
func (s *Supervisor) StopAll() {
	s.mu.Lock()
	for name, r := range s.running {
		s.stop(name, r)
	}
	s.mu.Unlock()
}
