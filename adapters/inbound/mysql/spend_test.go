package mysql

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	gmclient "github.com/go-mysql-org/go-mysql/client"
	gm "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// spendEnv is a return-mode mysql listener with spend_approval_on: accepted
// in front of the local MariaDB (127.0.0.1:3306, root), on a database of
// its own; DELETE, DROP, CALL and INSERT need approval.
type spendEnv struct {
	t    *testing.T
	cp   *fakecp.CP
	addr string
	db   string
}

func newSpendEnv(t *testing.T) *spendEnv {
	t.Helper()
	e := &spendEnv{t: t, cp: fakecp.New(nil), db: "spend_" + strings.ReplaceAll(t.Name(), "/", "_")}
	if len(e.db) > 60 {
		e.db = e.db[:60]
	}
	if err := e.admin("", "DROP DATABASE IF EXISTS "+e.db+"; CREATE DATABASE "+e.db); err != nil {
		t.Skipf("no local MariaDB at 127.0.0.1:3306 (root): %v", err)
	}
	t.Cleanup(func() { e.admin("", "DROP DATABASE IF EXISTS "+e.db) })
	s := app.ListenerSettings{Name: "spend", Protocol: "mysql", Mode: app.ModeReturn, SpendOn: ports.SpendOnAccepted,
		Upstream: "127.0.0.1:3306", Approvals: []domain.ApprovalRule{{Name: "destructive",
			Match: domain.Match{Actions: []string{"DELETE", "DROP", "CALL", "INSERT"}}}}}
	if err := s.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	l := app.NewCore(app.CoreOptions{Sidecar: "spend", CP: e.cp}).Listener(s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); New(nil).Serve(ctx, ln, l) }()
	t.Cleanup(func() { cancel(); l.EndDrain(); <-done })
	e.addr = ln.Addr().String()
	return e
}

// admin runs q (multi-statement) on the upstream directly, in db.
func (e *spendEnv) admin(db, q string) error {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName, cfg.MultiStatements = "root", "tcp", "127.0.0.1:3306", db, true
	cfg.Timeout = 5 * time.Second
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	d := sql.OpenDB(c)
	defer d.Close()
	_, err = d.Exec(q)
	return err
}

func (e *spendEnv) direct(q string) {
	e.t.Helper()
	if err := e.admin(e.db, q); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
}

// client is a go-mysql client connection through the listener.
func (e *spendEnv) client() *gmclient.Conn {
	e.t.Helper()
	c, err := gmclient.Connect(e.addr, "root", "", e.db, func(c *gmclient.Conn) error { return c.SetCapability(gm.CLIENT_MULTI_STATEMENTS) })
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// approved sends q, expects it held (1227), approves it and returns its id.
func (e *spendEnv) approved(q string) string {
	e.t.Helper()
	_, err := e.client().Execute(q)
	var me *gm.MyError
	if !errors.As(err, &me) || me.Code != 1227 {
		e.t.Fatalf("%q: %v, want held (1227)", q, err)
	}
	i := strings.Index(me.Message, "(approval ")
	if i < 0 {
		e.t.Fatalf("no approval id in %q", me.Message)
	}
	id := strings.TrimSuffix(me.Message[i+len("(approval "):], ")")
	if err := e.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// status reads id's status once.
func (e *spendEnv) status(id string) domain.Status {
	a, err := e.cp.Get(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Status
}

// settled polls id until it is no longer PROCESSING (the listener settles
// after the client got its answer), bounded by 20 s.
func (e *spendEnv) settled(id string) domain.Status {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := e.status(id)
		if st != domain.StatusProcessing || time.Now().After(deadline) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// spent polls id until the listener claimed and settled it (neither
// APPROVED nor PROCESSING) or until 20 s, which only a ticket left open
// reaches.
func (e *spendEnv) spent(id string) domain.Status {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := e.status(id)
		if (st != domain.StatusProcessing && st != domain.StatusApproved) || time.Now().After(deadline) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func errCode(err error) uint16 {
	var me *gm.MyError
	if errors.As(err, &me) {
		return me.Code
	}
	return 0
}

// The outcomes of an approved statement on MariaDB: an ERR raised before
// anything ran gives the approval back; an ERR after part of it ran (a
// multi-target DROP, a CALL that deleted before its SIGNAL), an ERR raised
// while executing, and a multi-statement text spend it (spend.go).
func TestSpendOnAcceptedMariaDBErrors(t *testing.T) {
	e := newSpendEnv(t)
	e.direct("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2)")
	e.direct("CREATE PROCEDURE p() BEGIN DELETE FROM t WHERE id = 2; SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'after the delete'; END")

	id := e.approved("DELETE FROM nosuch")
	if _, err := e.client().Execute("DELETE FROM nosuch"); errCode(err) != 1146 {
		t.Fatalf("DELETE FROM nosuch: %v, want 1146", err)
	}
	if st := e.settled(id); st != domain.StatusApproved {
		t.Fatalf("after ERR 1146 (raised before anything ran) the approval is %s, want APPROVED", st)
	}

	for _, tc := range []struct {
		q    string
		code uint16
	}{
		{"DROP TABLE t2, nosuch_table", 1051},       // drops t2, then the ERR
		{"CALL p()", 1644},                          // deleted id 2, then SIGNAL
		{"INSERT INTO t VALUES (1)", 1062},          // raised while executing
		{"DELETE FROM nosuch; DELETE FROM t", 1146}, // a multi-statement text
	} {
		e.direct("CREATE TABLE IF NOT EXISTS t2 (id int)")
		id := e.approved(tc.q)
		if _, err := e.client().Execute(tc.q); errCode(err) != tc.code {
			t.Fatalf("%q: %v, want ERR %d", tc.q, err, tc.code)
		}
		if st := e.settled(id); st != domain.StatusExecuted {
			t.Fatalf("%q: after ERR %d the approval is %s, want EXECUTED", tc.q, tc.code, st)
		}
	}
}

// The upstream lost mid-answer (its connection killed while the approved
// statement runs) and a client gone after its statement was forwarded
// leave the outcome unknown: the approval is spent, never given back and
// never left PROCESSING.
func TestSpendOnAcceptedLostOutcomesSpend(t *testing.T) {
	e := newSpendEnv(t)
	e.direct("CREATE TABLE t (id int); INSERT INTO t VALUES (1)")

	q := "DELETE FROM t WHERE SLEEP(2) = 0"
	id := e.approved(q)
	c := e.client()
	var thread uint32
	r, err := c.Execute("SELECT CONNECTION_ID()")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := r.GetInt(0, 0)
	thread = uint32(v)
	errc := make(chan error, 1)
	go func() { _, err := c.Execute(q); errc <- err }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := e.count(&n, "SELECT count(*) FROM information_schema.processlist WHERE id = ? AND info LIKE 'DELETE%'", thread); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the approved DELETE never ran upstream")
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.direct("KILL CONNECTION " + itoa(thread))
	if err := <-errc; err == nil {
		t.Fatal("the DELETE answered OK though its upstream connection was killed")
	}
	if st := e.spent(id); st != domain.StatusExecuted {
		t.Fatalf("upstream lost mid-answer: approval %s, want EXECUTED", st)
	}

	// The client sends the approved statement and resets its connection
	// at once: the answer cannot be delivered.
	q2 := "DELETE FROM t WHERE SLEEP(0.5) = 0"
	id2 := e.approved(q2)
	c2 := e.client()
	c2.ResetSequence()
	if err := c2.WritePacket(append([]byte{0, 0, 0, 0, gm.COM_QUERY}, q2...)); err != nil {
		t.Fatal(err)
	}
	if tc, ok := c2.Conn.Conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c2.Conn.Conn.Close()
	if st := e.spent(id2); st != domain.StatusExecuted {
		t.Fatalf("client gone after forwarding: approval %s, want EXECUTED", st)
	}
}

func (e *spendEnv) count(n *int, q string, args ...any) error {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", "127.0.0.1:3306"
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	d := sql.OpenDB(c)
	defer d.Close()
	return d.QueryRow(q, args...).Scan(n)
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
