package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/internal/listenertest"
)

// A large text waiting for the parse budget (held by other connections)
// stops waiting when its client hangs up: the session ends and gives back
// what it held, nothing is filed, and the text is never forwarded.
func TestClientGoneWhileTextWaitsForAnalysis(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (v text)")
	f.direct("INSERT INTO t VALUES ('kept')")
	release := analyzer.HoldBudget()
	defer release()
	rc := f.raw()
	rc.send(&pgproto3.Query{String: bigDelete(256 << 10)})
	listenertest.HeldTaken(t, f.l.Held()) // the text is read and waits for the parse budget
	rc.c.Close()                          // the client hangs up while its text waits
	listenertest.HeldWhole(t, f.l.Held())
	release()
	if n := len(f.cp.Records()); n != 0 {
		t.Fatalf("a text whose client left filed %d approval request(s)", n)
	}
	if n := f.count("SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows: the text ran", n)
	}
}
