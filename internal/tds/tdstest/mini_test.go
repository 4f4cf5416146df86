package tdstest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	mssql "github.com/microsoft/go-mssqldb"

	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

func miniDB(t *testing.T, m *tdstest.Mini, user, pw, db string) *sql.DB {
	t.Helper()
	d, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://%s:%s@%s?database=%s&encrypt=disable", user, pw, m.Start(t), db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	d.SetMaxOpenConns(1)
	return d
}

// TestMiniGoMSSQLDB drives the SQL Server stand-in with go-mssqldb:
// credentials checked, USE and transactions tracked, the table store,
// sp_executesql, the executed log, errors.
func TestMiniGoMSSQLDB(t *testing.T) {
	m := &tdstest.Mini{Users: map[string]string{"agent": "S3cret!"}, Databases: []string{"appdb", "otherdb"}}
	ctx := context.Background()

	bad := miniDB(t, m, "agent", "wrong", "appdb")
	var se mssql.Error
	if err := bad.PingContext(ctx); !errors.As(err, &se) || se.Number != 18456 {
		t.Fatalf("wrong password: %v", err)
	}

	db := miniDB(t, m, "agent", "S3cret%21", "appdb")
	mustExec := func(q string, args ...any) sql.Result {
		t.Helper()
		r, err := db.ExecContext(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return r
	}
	one := func(q string, args ...any) any {
		t.Helper()
		var v any
		if err := db.QueryRowContext(ctx, q, args...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	mustExec("CREATE TABLE items (id int PRIMARY KEY, name nvarchar(100))")
	if n, _ := mustExec("INSERT INTO items (id, name) VALUES (1, N'one'), (2, 'two'), (3, 'three')").RowsAffected(); n != 3 {
		t.Fatalf("INSERT affected %d", n)
	}
	if v := one("SELECT COUNT(*) FROM items"); v != int64(3) {
		t.Fatalf("count = %v", v)
	}
	if v := one("SELECT name FROM items WHERE id = @p1", 2); v != "two" {
		t.Fatalf("name = %v", v)
	}
	if n, _ := mustExec("DELETE FROM items WHERE id = @p1", 1).RowsAffected(); n != 1 {
		t.Fatalf("DELETE affected %d", n)
	}
	if m.Ran("DELETE FROM items WHERE id = @p1") != 1 || m.Rows("appdb", "items") != 2 {
		t.Fatalf("executed log: %+v", m.Executed())
	}
	last := m.Executed()[len(m.Executed())-1]
	if last.User != "agent" || last.Database != "appdb" || len(last.Params) != 1 || last.Params[0] != int64(1) {
		t.Fatalf("last executed = %+v", last)
	}

	// USE and DB_NAME(); the table lives in appdb only.
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "USE otherdb"); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := c.QueryRowContext(ctx, "SELECT DB_NAME()").Scan(&name); err != nil || name != "otherdb" {
		t.Fatalf("DB_NAME() = %q %v", name, err)
	}
	if _, err := c.ExecContext(ctx, "SELECT * FROM items"); !errors.As(err, &se) || se.Number != 208 {
		t.Fatalf("items in otherdb: %v", err)
	}
	c.Close()
	// The pool's next use resets the connection (RESETCONNECTION): back in
	// the login's database.
	if err := db.QueryRowContext(ctx, "SELECT DB_NAME()").Scan(&name); err != nil || name != "appdb" {
		t.Fatalf("after the pool's reset DB_NAME() = %q %v", name, err)
	}

	// A transaction rolled back restores the rows; go-mssqldb follows the
	// descriptors of ENVCHANGE 8/10.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM items WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if v := one("SELECT COUNT(*) FROM items"); v != int64(2) {
		t.Fatalf("after rollback count = %v", v)
	}

	// IF @@TRANCOUNT > 0 ROLLBACK, as drivers, ORMs and the listener send
	// it: rolls back an open transaction, and is a no-op without one.
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM items WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION"); err != nil {
		t.Fatalf("IF @@TRANCOUNT > 0 ROLLBACK in a transaction: %v", err)
	}
	tx.Rollback() // go-mssqldb's own, after the server's rollback: its error does not matter here
	if v := one("SELECT COUNT(*) FROM items"); v != int64(2) {
		t.Fatalf("after IF @@TRANCOUNT > 0 ROLLBACK count = %v", v)
	}
	mustExec("IF @@TRANCOUNT > 0 ROLLBACK")

	// A batch with an unknown statement runs nothing of it.
	before := len(m.Executed())
	if _, err := db.ExecContext(ctx, "DELETE FROM items WHERE id = 2; FROBNICATE items"); !errors.As(err, &se) || se.Number != 102 {
		t.Fatalf("unknown statement: %v", err)
	}
	if len(m.Executed()) != before || m.Rows("appdb", "items") != 2 {
		t.Fatalf("a failed batch ran something: %+v", m.Executed()[before:])
	}

	// The big generator streams.
	rows, err := db.QueryContext(ctx, "SELECT TOP 5000 id, payload FROM big")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if rows.Err() != nil || n != 5000 {
		t.Fatalf("big: %d rows, %v", n, rows.Err())
	}
}

// TestMiniWaitforAttention cancels WAITFOR DELAY: the stand-in counts the
// Attention and the connection serves the next statement.
func TestMiniWaitforAttention(t *testing.T) {
	m := &tdstest.Mini{}
	db := miniDB(t, m, "u", "p", "master")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := db.ExecContext(ctx, "WAITFOR DELAY '00:00:10'")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	t.Logf("cancelled after %v", time.Since(start))
	if m.Attentions() != 1 {
		t.Fatalf("attentions = %d", m.Attentions())
	}
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after attention: %v", err)
	}
	// A short delay ends on its own.
	if _, err := db.Exec("WAITFOR DELAY '00:00:00.100'"); err != nil {
		t.Fatal(err)
	}
	if m.Ran("WAITFOR DELAY '00:00:10'") != 1 || !strings.Contains(fmt.Sprint(m.Executed()), "00:00:00.100") {
		t.Fatalf("executed = %+v", m.Executed())
	}
}
