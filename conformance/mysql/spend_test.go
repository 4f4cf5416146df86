package mysqlconf

import (
	"context"
	"testing"
)

// spend_approval_on: accepted gives an approval back only with proof that
// nothing of the statement ran (domain.NothingRan). MariaDB's `DROP TABLE
// victim, nosuch_table` drops victim and then answers ERR 1051: that ERR is
// no proof, so the approved resend spends the approval (EXECUTED), and the
// next identical send is held again under a new approval instead of
// dropping a recreated victim a second time (issue 24, point 1).
func TestMultiTargetDropErrSpendsTheApproval(t *testing.T) {
	e := newEnvNamed(t, "spend")
	addr, _ := e.sidecar(listenerOpts{spend: "accepted"})
	e.direct("CREATE TABLE victim (id int)")
	ctx := context.Background()
	c := e.conn(addr, "", nil)
	const drop = "DROP TABLE victim, nosuch_table"
	_, err := c.ExecContext(ctx, drop)
	id := heldID(t, err)
	e.cp.Approve(t, id)

	_, err = c.ExecContext(ctx, drop)
	myErr(t, err, 1051) // the upstream's: Unknown table 'nosuch_table', after dropping victim
	if n := e.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'victim'"); n != 0 {
		t.Fatalf("victim still exists after the approved DROP: the test's premise (MariaDB drops it) does not hold")
	}
	if st := e.settled(id); st != "EXECUTED" {
		t.Fatalf("after a DROP that ran in part the approval is %s, want EXECUTED", st)
	}

	e.direct("CREATE TABLE victim (id int)")
	_, err = c.ExecContext(ctx, drop)
	again := heldID(t, err)
	if again == id {
		t.Fatalf("the next identical DROP reused the spent approval %s", id)
	}
	if n := e.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'victim'"); n != 1 {
		t.Fatalf("the recreated victim was dropped again on one approval")
	}
}
