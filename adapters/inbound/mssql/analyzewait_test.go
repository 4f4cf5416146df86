package mssql

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/inbound/mssql/analyzer"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/internal/tds"
)

// A large batch waiting for the parse budget (held by other connections)
// stops waiting when its client hangs up: the session ends and gives back
// the request it held, nothing is filed, and the batch never runs.
func TestClientGoneWhileTextWaitsForAnalysis(t *testing.T) {
	f := newFixture(t)
	release := analyzer.HoldBudget()
	defer release()
	c := dialRaw(t, f.addr)
	c.login(agentLogin())
	big := "DELETE FROM t WHERE v = '" + strings.Repeat("x", 256<<10) + "'"
	c.send(tds.PacketSQLBatch, (&tds.SQLBatch{Text: big}).Encode())
	listenertest.HeldTaken(t, f.l.Held()) // the batch is read and waits for the parse budget
	c.conn.Close()                        // the client hangs up while its batch waits
	listenertest.HeldWhole(t, f.l.Held())
	release()
	if n := len(f.cp.Records()); n != 0 {
		t.Fatalf("a batch whose client left filed %d approval request(s)", n)
	}
	if f.ranCount(big) != 0 {
		t.Fatal("the batch ran")
	}
}
