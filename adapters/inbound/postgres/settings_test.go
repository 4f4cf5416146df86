package postgres

import (
	"context"
	"testing"
)

// With standard_conforming_strings off, '\” is an escaped quote to the
// server but not to the parser: a text that hides a DROP in what the parser
// reads as a string is refused, not forwarded.
func TestStandardConformingStringsOffIsRefused(t *testing.T) {
	f := newFixture(t)
	f.direct("CREATE TABLE t (id int)")
	f.direct("CREATE TABLE decoy (id int)")
	const smuggle = `SELECT 'a\'' ; DROP TABLE %s; --'`
	ctx := context.Background()

	// The server really runs the hidden statement (so this test can fail).
	direct, err := pgxConnect(ctx, f.adminURL(f.db))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)
	if _, err := direct.PgConn().Exec(ctx, "SET standard_conforming_strings = off").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := direct.PgConn().Exec(ctx, sprintf(smuggle, "decoy")).ReadAll(); err != nil {
		t.Fatal(err)
	}
	if f.count("SELECT count(*) FROM pg_tables WHERE tablename = 'decoy'") != 0 {
		t.Fatal("the server did not run the hidden DROP: the premise of this test is wrong")
	}

	c := f.connect(returnApp)
	if _, err := c.Exec(ctx, `SELECT 'C:\path'`); err != nil {
		t.Fatalf("a backslash in a string with standard_conforming_strings on: %v", err)
	}
	if _, err := c.Exec(ctx, "SET standard_conforming_strings = off"); err != nil {
		t.Fatal(err)
	}
	_, err = c.PgConn().Exec(ctx, sprintf(smuggle, "t")).ReadAll()
	pgErr(t, err, CodeUnanalysable)
	if f.count("SELECT count(*) FROM pg_tables WHERE tablename = 't'") != 1 {
		t.Fatal("the hidden DROP ran through the listener")
	}
	if _, err := c.Exec(ctx, "SELECT E'a\\\\b'"); err != nil {
		t.Fatalf("E'' strings keep working: %v", err)
	}
}
