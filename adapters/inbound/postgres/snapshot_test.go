package postgres

import (
	"context"
	"sync"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// reloadAfterFirstRead makes a reload (to rules that hold TRUNCATE only)
// land right after the first unit read its settings.
func (f *fixture) reloadAfterFirstRead(t *testing.T) {
	next := f.set
	next.Approvals = []domain.ApprovalRule{{Name: "truncate", Match: domain.Match{Actions: []string{"TRUNCATE"}}}}
	if err := next.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	hook := func(l *app.Listener) *app.ListenerSettings {
		set := l.Settings()
		once.Do(func() { l.Update(next) })
		return set
	}
	f.snapshot.Store(&hook)
}

// A reload between a unit's analysis and its decision cannot pair one rule
// set's reading with the other's decision: the unit INSERT; DELETE is read
// with the rules that hold DELETE, and decided with them too (held), never
// with the new rules applied to the DELETE (which would let both run).
func TestOneRuleSetPerUnitSimple(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	f.reloadAfterFirstRead(t)
	c := f.connect(returnApp)
	ctx := context.Background()
	_, err := c.PgConn().Exec(ctx, "INSERT INTO t VALUES (300); DELETE FROM t WHERE id = 7").ReadAll()
	heldID(t, err)
	if f.count("SELECT count(*) FROM t WHERE id = 7") != 1 || f.count("SELECT count(*) FROM t WHERE id = 300") != 0 {
		t.Fatal("a unit ran with half of each rule set")
	}
	// The next unit is read and decided with the new rules, which let it run.
	if _, err := c.PgConn().Exec(ctx, "INSERT INTO t VALUES (300); DELETE FROM t WHERE id = 7").ReadAll(); err != nil {
		t.Fatalf("after the reload: %v", err)
	}
}

// The same for a Sync batch of the extended protocol.
func TestOneRuleSetPerUnitExtended(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("INSERT INTO t VALUES (7)")
	f.reloadAfterFirstRead(t)
	c := f.connect(returnApp).PgConn()
	heldID(t, sendPipeline(t, c, []byte("7")))
	if f.count("SELECT count(*) FROM t WHERE id = 7") != 1 || f.count("SELECT count(*) FROM t WHERE id = 100") != 0 {
		t.Fatal("a pipeline ran with half of each rule set")
	}
}
