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

func (e *effect) touches(portal bool, name string) bool {
	return e.portal == portal && (e.name == name || (e.all && name != ""))
}

func newNames() names {
	return names{stmts: map[string]*prepared{}, portals: map[string]*portal{}}
}

func (n *names) end() int { return n.base + len(n.log) }

// change records e as the newest change of the current unit.
func (s *session) change(e *effect) { s.names.log = append(s.names.log, e) }

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
	if keep := n.sent - n.base; keep >= 0 && keep < len(n.log) {
		clear(n.log[keep:])
		n.log = n.log[:keep]
	}
}

// stmt returns the statement a message of the current unit reads under
// name (nil when there is none), waiting for an earlier unit's change to it
// to be answered.
func (s *session) stmt(name string) *prepared {
	e := s.lookup(false, name)
	if e != nil {
		return e.stmt
	}
	return s.names.stmts[name]
}

// portalNamed is stmt for portals.
func (s *session) portalNamed(name string) *portal {
	e := s.lookup(true, name)
	if e != nil {
		return e.port
	}
	return s.names.portals[name]
}

// peekStmt returns the newest statement recorded under name without
// waiting (for the approver's rendering only).
func (s *session) peekStmt(name string) *prepared {
	n := &s.names
	for i := len(n.log) - 1; i >= 0; i-- {
		if n.log[i].touches(false, name) {
			return n.log[i].stmt
		}
	}
	return n.stmts[name]
}

// lookup returns the current unit's newest change to name, or nil once the
// maps hold the answer.
func (s *session) lookup(portal bool, name string) *effect {
	n := &s.names
	unitAt := n.unit - n.base
	for i := len(n.log) - 1; i >= max(unitAt, 0); i-- {
		if n.log[i].touches(portal, name) {
			return n.log[i]
		}
	}
	last := -1
	for i := 0; i < unitAt && i < len(n.log); i++ {
		if n.log[i].touches(portal, name) {
			last = i
		}
	}
	if last >= 0 {
		s.waitAnswered(n.log[last].exp)
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
