package mssql

import (
	"context"
	"testing"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/tds"
)

// waitFiled waits (≤ 10 s) until the Control Plane has n approvals.
func (f *fixture) waitFiled(n int) []string {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if r := f.cp.Records(); len(r) >= n {
			var ids []string
			for _, x := range r {
				ids = append(ids, x.ID)
			}
			return ids
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.t.Fatalf("no %d approvals filed", n)
	return nil
}

// Wait mode: the statement waits for the person; approved, it runs once
// and the client gets its answer.
func TestWaitModeApproved(t *testing.T) {
	f := newFixture(t)
	c := f.conn("agent")
	go func() { f.approve(f.waitFiled(1)[0]) }()
	res, err := c.ExecContext(context.Background(), "DELETE FROM t WHERE id = 9")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 || f.ranCount("DELETE FROM t WHERE id = 9") != 1 {
		t.Fatalf("rows %d, ran %d", n, f.ranCount("DELETE FROM t WHERE id = 9"))
	}
}

// A client that hangs up while its statement waits ends the wait: nothing
// is forwarded, and the approval is left as the person decides it.
func TestHangUpEndsTheWait(t *testing.T) {
	f := newFixture(t)
	c := dialRaw(t, f.addr)
	c.login(agentLogin())
	b := &tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: "DELETE FROM t"}
	c.send(tds.PacketSQLBatch, b.Encode())
	id := f.waitFiled(1)[0]
	c.conn.Close()
	f.waitDecision("client_gone")
	f.approve(id)
	if f.ranCount("DELETE FROM t") != 0 {
		t.Fatal("the statement of a client that hung up ran")
	}
	if a, _ := f.cp.Get(context.Background(), id); a.Status != domain.StatusApproved {
		t.Fatalf("approval %s, want APPROVED (unspent)", a.Status)
	}
}
