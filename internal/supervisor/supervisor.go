package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/logging"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// DefaultGrace is the drain deadline when none is configured: 25 s, so that
// the drain (25 s), the native closes after it (CloseWait, 1 s), the forced
// settles (app.ForcedSettleBudget, 2 s) and the rest of the stop (1 s) end
// before Kubernetes' default terminationGracePeriodSeconds of 30 s sends
// SIGKILL.
const DefaultGrace = 25 * time.Second

// CloseWait is how long, after the drain deadline, the protocols get to end
// their connections with their own shutdown error before the supervisor
// closes what is left.
const CloseWait = time.Second

// Supervisor runs the listeners. It binds every address it needs before it
// changes anything (a reload that cannot bind, or whose certificate does
// not load, changes nothing), hands each address to its protocol's Serve
// through a listener whose connections it counts, and drains listeners
// that stop (shutdown, or a reload that removes or moves them) within the
// drain deadline.
type Supervisor struct {
	core      *app.Core
	protocols map[string]app.Protocol
	log       *slog.Logger
	grace     time.Duration

	mu       sync.Mutex
	applied  []app.ListenerSettings // the set the last successful Apply asked for
	running  map[string]*instance   // by listener name
	draining map[*instance]struct{}
	sockets  map[string]*socket // by configured address
	stopping bool
	drains   sync.WaitGroup
}

// instance is one listener serving on one socket. A listener that moves
// gets a new instance; the old one drains.
type instance struct {
	settings app.ListenerSettings // as started (name, protocol, listen)
	l        *app.Listener
	sock     *socket
	ln       *connListener
	cancel   context.CancelFunc
	conns    *connSet
	served   chan struct{} // closed when Serve returned
	hurry    chan struct{} // closed to end the drain now (shutdown's deadline)
	hurryOne sync.Once

	mu       sync.Mutex
	retired  bool
	serveErr error // set when Serve returned on its own
}

// New returns a Supervisor serving protocols on core. grace is the drain
// deadline of a stopped listener (DefaultGrace when 0 or less).
func New(core *app.Core, protocols []app.Protocol, grace time.Duration, log *slog.Logger) *Supervisor {
	if grace <= 0 {
		grace = DefaultGrace
	}
	log = logging.OrDiscard(log)
	m := map[string]app.Protocol{}
	for _, p := range protocols {
		m[p.Name()] = p
	}
	return &Supervisor{core: core, protocols: m, log: log, grace: grace, running: map[string]*instance{},
		draining: map[*instance]struct{}{}, sockets: map[string]*socket{}}
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

// Grace returns the drain deadline.
func (s *Supervisor) Grace() time.Duration { return s.grace }

// plan is what Apply does for one listener.
type plan struct {
	ls      app.ListenerSettings
	p       app.Protocol
	cur     *instance // running under this name, or nil
	update  bool      // same protocol and address: new settings in place
	sock    *socket   // the socket to serve on (start)
	newSock bool      // bound by this Apply
}

// Apply makes the running listeners match settings, all or nothing. It
// first checks every protocol, loads every listener certificate and binds
// every address not bound yet; if any of that fails it closes what it bound,
// changes nothing and returns the errors, each naming its listener. Then it
// updates listeners whose protocol and address are unchanged in place (their
// live connections follow the new rules), starts added and moved ones (an
// address that another listener leaves in the same Apply is handed over
// without being closed, so two listeners can swap addresses), and stops
// removed and moved ones, which drain within the drain deadline. It fails
// once Shutdown has begun.
func (s *Supervisor) Apply(settings []app.ListenerSettings) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return errors.New("the Sidecar is shutting down")
	}
	plans, err := s.prepare(settings)
	if err != nil {
		for _, pl := range plans {
			if pl.newSock {
				pl.sock.close()
			}
		}
		return err
	}
	want := map[string]bool{}
	for _, pl := range plans {
		want[pl.ls.Name] = true
		if pl.update {
			pl.cur.l.Update(pl.ls)
			continue
		}
		s.start(pl)
	}
	for name, cur := range s.running {
		if !want[name] {
			s.retire(cur, "removed")
			delete(s.running, name)
		}
	}
	// Draining instances of a listener that is still configured (it moved)
	// follow its rule changes too.
	for inst := range s.draining {
		for _, pl := range plans {
			if pl.ls.Name == inst.settings.Name && pl.ls.Protocol == inst.settings.Protocol {
				inst.l.Update(pl.ls)
			}
		}
	}
	// Close the addresses nobody serves any more.
	for key, sock := range s.sockets {
		if inst, _ := sock.owner(); inst == nil || inst.isRetired() {
			sock.close()
			delete(s.sockets, key)
		}
	}
	s.applied = append([]app.ListenerSettings(nil), settings...)
	return nil
}

// prepare checks settings and binds what is missing; it changes no running
// listener. On error the plans returned hold the sockets it bound.
func (s *Supervisor) prepare(settings []app.ListenerSettings) ([]plan, error) {
	var errs []error
	plans := make([]plan, 0, len(settings))
	// Which running listener keeps which address.
	kept := map[string]string{}
	for _, ls := range settings {
		if cur := s.running[ls.Name]; cur != nil && cur.settings.Protocol == ls.Protocol && cur.settings.Listen == ls.Listen {
			kept[ls.Listen] = ls.Name
		}
	}
	claimed := map[string]string{}
	for _, ls := range settings {
		pl := plan{ls: ls, cur: s.running[ls.Name]}
		p, ok := s.protocols[ls.Protocol]
		if !ok {
			errs = append(errs, fmt.Errorf("listener %s: protocol %q is not served by this binary", ls.Name, ls.Protocol))
			continue
		}
		pl.p = p
		if ls.TLS.Enabled() {
			if _, err := tlsconf.LoadServer(ls.TLS); err != nil {
				errs = append(errs, fmt.Errorf("listener %s: %w", ls.Name, err))
				continue
			}
		}
		if err := tlsconf.LoadX509Logins(ls.X509Logins); err != nil {
			errs = append(errs, fmt.Errorf("listener %s: %w", ls.Name, err))
			continue
		}
		if other, dup := claimed[ls.Listen]; dup && !anyPort(ls.Listen) {
			errs = append(errs, fmt.Errorf("listener %s: address %s is also listener %s's", ls.Name, ls.Listen, other))
			continue
		}
		claimed[ls.Listen] = ls.Name
		if kept[ls.Listen] == ls.Name {
			pl.update = true
			plans = append(plans, pl)
			continue
		}
		if sock := s.sockets[ls.Listen]; sock != nil && !anyPort(ls.Listen) {
			// Bound already, by a listener that leaves it in this Apply.
			pl.sock = sock
			plans = append(plans, pl)
			continue
		}
		ln, err := net.Listen("tcp", ls.Listen)
		if err != nil {
			errs = append(errs, fmt.Errorf("listener %s: bind %s: %w", ls.Name, ls.Listen, err))
			continue
		}
		pl.sock, pl.newSock = newSocket(ls.Listen, ln), true
		plans = append(plans, pl)
	}
	return plans, errors.Join(errs...)
}

// anyPort reports whether addr asks for any free port (":0"), which is never
// shared between listeners.
func anyPort(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	return err == nil && port == "0"
}

// start serves pl on its socket; the instance running under the same name
// (a move) drains. Called with s.mu held.
func (s *Supervisor) start(pl plan) {
	key := pl.ls.Listen
	if pl.newSock {
		key = pl.sock.ln.Addr().String()
		if !anyPort(pl.ls.Listen) {
			key = pl.ls.Listen
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	inst := &instance{settings: pl.ls, l: s.core.Listener(pl.ls), sock: pl.sock,
		ln: newConnListener(pl.sock.ln.Addr()), cancel: cancel, conns: newConnSet(),
		served: make(chan struct{}), hurry: make(chan struct{})}
	if old, _ := pl.sock.owner(); old != nil && old != pl.cur {
		// The address is handed over from another listener that moves away
		// or is removed in this Apply (a swap): that instance drains.
		s.retire(old, "its address goes to listener "+pl.ls.Name)
	}
	if pl.cur != nil {
		s.retire(pl.cur, "moved to "+pl.ls.Listen)
	}
	s.sockets[key] = pl.sock
	pl.sock.setTarget(inst)
	s.running[pl.ls.Name] = inst
	s.log.Info("listener started", "listener", pl.ls.Name, "protocol", pl.ls.Protocol, "listen", pl.sock.ln.Addr().String(),
		"upstream", pl.ls.Upstream, "mode", string(pl.ls.Mode), "spend_approval_on", string(pl.ls.SpendOn))
	go func() {
		defer close(inst.served)
		err := pl.p.Serve(ctx, inst.ln, inst.l)
		inst.mu.Lock()
		retired := inst.retired
		if !retired {
			if err == nil {
				err = errors.New("stopped serving")
			}
			inst.serveErr = err
		}
		inst.mu.Unlock()
		if !retired {
			s.log.Error("listener stopped with an error", "listener", pl.ls.Name, "error", err)
		}
	}()
}

// stopAccepting makes inst take no new connections (its socket goes to
// another instance).
func (s *Supervisor) stopAccepting(inst *instance) {
	inst.conns.stop()
	_ = inst.ln.Close()
}

// retire stops inst accepting, cancels its Serve and drains it in the
// background. Called with s.mu held.
func (s *Supervisor) retire(inst *instance, why string) {
	inst.mu.Lock()
	if inst.retired {
		inst.mu.Unlock()
		return
	}
	inst.retired = true
	inst.mu.Unlock()
	s.stopAccepting(inst)
	inst.cancel()
	s.draining[inst] = struct{}{}
	s.drains.Add(1)
	s.log.Info("listener stopped accepting; its connections drain", "listener", inst.settings.Name,
		"listen", inst.ln.Addr().String(), "why", why, "connections", inst.conns.live(), "deadline", s.grace.String())
	go s.drain(inst)
}

// drain waits until inst's connections have ended, or until the drain
// deadline (or Shutdown's) passes; then it tells the protocol to end them
// (app.Listener.EndDrain), gives it CloseWait, and closes what is left.
func (s *Supervisor) drain(inst *instance) {
	defer s.drains.Done()
	timer := time.NewTimer(s.grace)
	defer timer.Stop()
	forced := 0
	select {
	case <-inst.conns.emptied():
	case <-timer.C:
	case <-inst.hurry:
	}
	inst.l.EndDrain()
	if inst.conns.live() > 0 {
		select {
		case <-inst.conns.emptied():
		case <-time.After(CloseWait):
			forced = inst.conns.closeAll()
		}
	}
	<-inst.served
	s.mu.Lock()
	delete(s.draining, inst)
	s.mu.Unlock()
	s.log.Info("listener drained", "listener", inst.settings.Name, "listen", inst.ln.Addr().String(),
		"connections_served", inst.accepted(), "closed_at_deadline", forced)
}

func (inst *instance) isRetired() bool {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return inst.retired
}

func (inst *instance) accepted() int {
	inst.conns.mu.Lock()
	defer inst.conns.mu.Unlock()
	return inst.conns.accepted
}

// Shutdown stops every listener and drains them within ctx's deadline (the
// Sidecar's shutdown_grace): statements waiting for a person end at once
// with a shutdown denial (app.Gate.BeginShutdown); statements in flight
// finish; at the deadline the connections left are ended with each
// protocol's own error. Then it waits for every approval claimed with
// spend_approval_on: accepted to be settled, settling those left itself
// (app.Gate.SettleOpen). It returns when all of that is done; later calls
// return at once.
func (s *Supervisor) Shutdown(ctx context.Context) {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return
	}
	s.stopping = true
	s.core.Gate.BeginShutdown()
	for name, inst := range s.running {
		s.retire(inst, "shutdown")
		delete(s.running, name)
	}
	for key, sock := range s.sockets {
		sock.close()
		delete(s.sockets, key)
	}
	list := make([]*instance, 0, len(s.draining))
	for inst := range s.draining {
		list = append(list, inst)
	}
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		for _, inst := range list {
			inst.hurryOne.Do(func() { close(inst.hurry) })
		}
	})
	defer stop()
	s.drains.Wait()
	if n := s.core.Gate.SettleOpen(ctx); n > 0 {
		s.log.Warn("settled approvals left open at shutdown", "count", n)
	}
}

// Ready returns nil when every listener of the applied set is serving, else
// an error saying which is not (or that the Sidecar is shutting down).
func (s *Supervisor) Ready() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return errors.New("shutting down")
	}
	var errs []error
	for _, ls := range s.applied {
		inst := s.running[ls.Name]
		if inst == nil {
			errs = append(errs, fmt.Errorf("listener %s is not running", ls.Name))
			continue
		}
		inst.mu.Lock()
		err := inst.serveErr
		inst.mu.Unlock()
		if err != nil {
			errs = append(errs, fmt.Errorf("listener %s stopped: %w", ls.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Addr returns the bound address of a running listener ("" if none).
func (s *Supervisor) Addr(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inst := s.running[name]; inst != nil {
		return inst.ln.Addr().String()
	}
	return ""
}

// Count returns how many listeners are running (draining ones not counted).
func (s *Supervisor) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.running)
}

// Draining returns how many stopped listeners are still draining.
func (s *Supervisor) Draining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.draining)
}
