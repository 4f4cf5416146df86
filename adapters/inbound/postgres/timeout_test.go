package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// A Parse no rule could hold reaches PostgreSQL when the client sends it,
// not at the unit's Sync: a client that stalls after Parse for longer than
// statement_timeout gets PostgreSQL's 57014, as directly (issue 31 point 1;
// pgx's TestPrepareHandlesTimeoutBetweenParseAndDescribe). Held until the
// Sync, PostgreSQL received Parse, Describe and Sync at once and its timer
// never covered the stall.
func TestStallAfterParseMeetsStatementTimeout(t *testing.T) {
	f := newFixture(t)
	rc := f.raw()
	if got := rc.q("SET statement_timeout = '100ms'"); !strings.HasSuffix(got, "ZI") {
		t.Fatalf("SET statement_timeout: %s", got)
	}
	rc.send(&pgproto3.Parse{Name: "s", Query: "select $1::varchar"})
	// The client's stall is the scenario, three times statement_timeout.
	time.Sleep(300 * time.Millisecond)
	rc.send(&pgproto3.Describe{ObjectType: 'S', Name: "s"}, &pgproto3.Sync{})
	if got := rc.untilReady(); !strings.Contains(got, "E[57014 ") {
		t.Fatalf("Parse, a 300 ms stall, Describe, Sync with statement_timeout 100ms: %s, want ERROR 57014", got)
	}
	// A DELETE's Parse (the fixture's rule holds DELETE) still waits for
	// its unit's decision, and the held unit is answered as before.
	rc.q("SET statement_timeout = 0")
	rc.send(&pgproto3.Parse{Query: "DELETE FROM pg_temp.nothing"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	if got := rc.untilReady(); !strings.Contains(got, "E[42501 ") {
		t.Fatalf("a DELETE through the listener: %s, want it held (42501)", got)
	}
}
