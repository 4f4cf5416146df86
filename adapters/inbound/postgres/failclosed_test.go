package postgres

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// What the listener cannot see (a Bind of a statement, an Execute of a
// portal, an SQL EXECUTE of a name it never saw prepared) is refused
// unchecked on a listener whose rules do not cover UNKNOWN, as mysql and
// mssql refuse it: fail closed (domain.FailsClosed). It is not forwarded.
func TestUnseenStatementFailsClosed(t *testing.T) {
	f := newFixture(t)
	rc := f.raw()
	refused := "E[" + CodeUnanalysable + " hoop sidecar: this statement cannot be checked"
	for name, msgs := range map[string][]pgproto3.FrontendMessage{
		"Bind of an unseen statement": {&pgproto3.Bind{PreparedStatement: "gatecall_nosuch"}, &pgproto3.Execute{}, &pgproto3.Sync{}},
		"Execute of an unseen portal": {&pgproto3.Execute{Portal: "gatecall_portal"}, &pgproto3.Sync{}},
		"EXECUTE of an unseen name":   {&pgproto3.Query{String: "EXECUTE gatecall_nosuch"}},
	} {
		rc.send(msgs...)
		if got := rc.untilReady(); !strings.HasPrefix(got, refused) || !strings.HasSuffix(got, "ZI") {
			t.Errorf("%s: %s, want %s…] then ReadyForQuery", name, got, refused)
		}
	}
	if got := rc.q("SELECT 1"); got != "C[SELECT 1] ZI" {
		t.Fatalf("the connection after the refusals: %s", got)
	}
}
