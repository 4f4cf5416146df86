package postgres

// names is what the session knows of its prepared statements and portals.
// PostgreSQL keeps statements made by Parse and by SQL PREPARE in one
// namespace (EXECUTE runs either, Bind binds either), so they share one map.
//
// A change counts only once the upstream confirms it (ParseComplete,
// BindComplete, CloseComplete, the CommandComplete of a PREPARE or
// DEALLOCATE): a Parse the upstream refuses (the name is in use) or skips
// (after an error) leaves the old statement in place there, so it must stay
// in place here too, or a statement the gate never saw would run under a
// name the Sidecar believes harmless.
//
// Within one unit (a Sync batch, or a Query outside one) a change is used
// at once: PostgreSQL runs a later message of the unit only if every
// earlier one succeeded. A message that reads a name an earlier unit
// changed waits until the upstream has answered that change.
type names struct {
	stmts   map[string]*prepared
	portals map[string]*portal
	log     []*effect // changes not folded into the maps yet, in order
	base    int       // absolute index of log[0]
	unit    int       // absolute index of the current unit's first change
	sent    int       // absolute index past the last change forwarded
	// newest change in log to each name, and to all statements (DEALLOCATE
	// ALL; -1 when none), by absolute index: lookups stay O(1) in batches of
	// any length.
	last    map[nameKey]int
	lastAll int
}

type nameKey struct {
	portal bool
	name   string
}

// effect is one change to a name. exp is the expectation whose answer
// confirms it: when its ok count reaches need.
type effect struct {
	portal bool
	name   string
	all    bool      // DEALLOCATE ALL: every named statement
	stmt   *prepared // the new statement; nil deletes
	port   *portal   // the new portal; nil deletes
	exp    *expect
	need   int
}

func newNames() names {
	return names{stmts: map[string]*prepared{}, portals: map[string]*portal{}, last: map[nameKey]int{}, lastAll: -1}
}

func (n *names) end() int { return n.base + len(n.log) }

// index records the change at absolute index i as the newest to its name.
func (n *names) index(i int, e *effect) {
	if e.all {
		n.lastAll = i
	} else {
		n.last[nameKey{e.portal, e.name}] = i
	}
}

// newest returns the absolute index of the newest change in log to a name,
// or -1.
func (n *names) newest(portal bool, name string) int {
	i, ok := n.last[nameKey{portal, name}]
	if !ok {
		i = -1
	}
	if !portal && name != "" && n.lastAll > i {
		i = n.lastAll
	}
	return i
}

// change records e as the newest change of the current unit.
func (s *session) change(e *effect) {
	n := &s.names
	n.index(n.end(), e)
	n.log = append(n.log, e)
}

// beginUnit marks the start of a unit: changes recorded from now on are the
// unit's own. It folds what the upstream has already answered.
func (s *session) beginUnit() {
	s.fold()
	s.names.unit = s.names.end()
}

// markSent records that every change so far was forwarded.
func (s *session) markSent() { s.names.sent = s.names.end() }

// dropUnsent forgets the changes of messages that were not forwarded (a
// held unit).
func (s *session) dropUnsent() {
	n := &s.names
	keep := n.sent - n.base
	if keep < 0 || keep >= len(n.log) {
		return
	}
	clear(n.log[keep:])
	n.log = n.log[:keep]
	clear(n.last)
	n.lastAll = -1
	for i, e := range n.log {
		n.index(n.base+i, e)
	}
}

// stmt returns the statement a message of the current unit reads under
// name (nil when there is none), waiting for an earlier unit's change to it
// to be answered.
func (s *session) stmt(name string) *prepared {
	if e := s.lookup(false, name); e != nil {
		return e.stmt
	}
	return s.names.stmts[name]
}

// portalNamed is stmt for portals.
func (s *session) portalNamed(name string) *portal {
	if e := s.lookup(true, name); e != nil {
		return e.port
	}
	return s.names.portals[name]
}

// peekStmt returns the newest statement recorded under name without
// waiting (for the approver's rendering only).
func (s *session) peekStmt(name string) *prepared {
	n := &s.names
	if i := n.newest(false, name); i >= n.base {
		return n.log[i-n.base].stmt
	}
	return n.stmts[name]
}

// lookup returns the current unit's newest change to name, or nil once the
// maps hold the answer.
func (s *session) lookup(portal bool, name string) *effect {
	n := &s.names
	i := n.newest(portal, name)
	if i >= n.unit {
		return n.log[i-n.base]
	}
	if i >= n.base {
		s.waitAnswered(n.log[i-n.base].exp)
	}
	s.fold()
	return nil
}

// fold applies, in order, the changes of earlier units that the upstream
// has answered: the confirmed ones to the maps; the others are dropped.
func (s *session) fold() {
	n := &s.names
	for len(n.log) > 0 && n.base < n.unit {
		e := n.log[0]
		s.mu.Lock()
		// seq 0: never forwarded (cannot happen for an earlier unit; dropped).
		answered := e.exp.seq == 0 || s.popped >= e.exp.seq || s.relayDone
		ok := e.exp.seq > 0 && s.popped >= e.exp.seq && e.exp.ok >= e.need
		s.mu.Unlock()
		if !answered {
			return
		}
		if ok {
			n.apply(e)
		}
		if e.all && n.lastAll == n.base {
			n.lastAll = -1
		} else if k := (nameKey{e.portal, e.name}); !e.all && n.last[k] == n.base {
			delete(n.last, k)
		}
		n.log[0] = nil
		n.log = n.log[1:]
		n.base++
	}
}

func (n *names) apply(e *effect) {
	switch {
	case e.portal && e.port == nil:
		delete(n.portals, e.name)
	case e.portal:
		n.portals[e.name] = e.port
	case e.all:
		for k := range n.stmts {
			if k != "" {
				delete(n.stmts, k)
			}
		}
	case e.stmt == nil:
		delete(n.stmts, e.name)
	default:
		n.stmts[e.name] = e.stmt
	}
}

// waitAnswered blocks until the upstream has answered exp (or the relay
// ended).
func (s *session) waitAnswered(exp *expect) {
	if err := s.uw.Flush(); err != nil {
		s.log.Debug("flush to upstream failed", "error", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for exp.seq > 0 && s.popped < exp.seq && !s.relayDone {
		s.drained.Wait()
	}
}
