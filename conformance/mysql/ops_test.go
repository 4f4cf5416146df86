package mysqlconf

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// KILL QUERY <id> sent through the listener, with the id the client saw
// (CONNECTION_ID() through the listener is the upstream's thread id), ends
// the other connection's SELECT SLEEP(10) upstream: SLEEP returns 1 (it was
// interrupted) and the upstream's process list no longer shows the query.
func TestKillQueryThroughTheListener(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	ctx := context.Background()
	a, b := e.conn(addr, "", nil), e.conn(addr, "", nil)
	var id uint64
	if err := a.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	type result struct {
		v   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.err = a.QueryRowContext(ctx, "SELECT SLEEP(10)").Scan(&r.v)
		done <- r
	}()
	running := fmt.Sprintf("SELECT count(*) FROM information_schema.processlist WHERE id = %d AND info LIKE 'SELECT SLEEP(10)%%'", id)
	for i := 0; e.count(running) != 1; i++ {
		if i > 200 {
			t.Fatal("the upstream never showed the SLEEP under the id the client saw")
		}
		time.Sleep(25 * time.Millisecond)
	}
	if _, err := b.ExecContext(ctx, "KILL QUERY "+strconv.FormatUint(id, 10)); err != nil {
		t.Fatalf("KILL QUERY through the listener: %v", err)
	}
	select {
	case r := <-done:
		if r.err == nil && r.v != 1 {
			t.Fatalf("SLEEP returned %d: it was not interrupted", r.v)
		}
		if r.err != nil {
			myErr(t, r.err, 1317)
		}
	case <-time.After(9 * time.Second):
		t.Fatal("the killed SLEEP(10) did not end")
	}
	if n := e.count(running); n != 0 {
		t.Fatal("the upstream still runs the killed query")
	}
	var one int
	if err := a.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the killed query's connection is not usable: %v", err)
	}
}

// rssKiB reads a process's resident set size from /proc.
func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// A 1,000,000-row SELECT arrives whole through the listener while the
// Sidecar's resident memory grows by less than 50 MiB: answers stream
// packet by packet.
func TestMillionRowsStreamWithFlatMemory(t *testing.T) {
	e := newEnv(t)
	addr, sc := e.sidecar(listenerOpts{})
	c := e.conn(addr, "", nil)
	ctx := context.Background()
	// The recursion limits of MySQL 8 and of MariaDB; each server refuses the other's.
	c.ExecContext(ctx, "SET SESSION cte_max_recursion_depth = 2000000")
	c.ExecContext(ctx, "SET SESSION max_recursive_iterations = 2000000")
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	base := rssKiB(t, sc.PID())
	peak := base
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				peak = max(peak, rssKiB(t, sc.PID()))
			}
		}
	}()
	rows, err := c.QueryContext(ctx, "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 1000000) SELECT n, REPEAT('x', 40) FROM s")
	if err != nil {
		t.Fatal(err)
	}
	var n, sum int64
	var pad string
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v, &pad); err != nil {
			t.Fatal(err)
		}
		n, sum = n+1, sum+v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	t.Logf("1,000,000 rows: Sidecar RSS %d KiB before, %d KiB at the peak (+%d KiB)", base, peak, peak-base)
	if n != 1000000 || sum != 1000000*1000001/2 {
		t.Fatalf("got %d rows summing to %d", n, sum)
	}
	if peak-base >= 50<<10 {
		t.Fatalf("Sidecar RSS grew by %d KiB, want < 50 MiB", peak-base)
	}
}

// Two Sidecar processes in front of the same upstream and Control Plane,
// 20 connections each, send one approved statement at once: exactly one
// runs (the claim is atomic in the Control Plane).
func TestTwoSidecarsRaceOneApprovalRunsOnce(t *testing.T) {
	e := newEnv(t)
	addr1, _ := e.sidecar(listenerOpts{})
	addr2, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int PRIMARY KEY)")
	var values []string
	for i := 1; i <= 100; i++ {
		values = append(values, fmt.Sprintf("(%d)", i))
	}
	e.direct("INSERT INTO t VALUES " + strings.Join(values, ","))
	ctx := context.Background()
	const stmt = "DELETE FROM t ORDER BY id LIMIT 1"
	_, err := e.conn(addr1, "", nil).ExecContext(ctx, stmt)
	e.cp.Approve(t, heldID(t, err))

	var conns []*sql.Conn
	for i := range 40 {
		conns = append(conns, e.conn([]string{addr1, addr2}[i%2], "", nil))
	}
	start := make(chan struct{})
	var ran sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for _, c := range conns {
		ran.Add(1)
		go func() {
			defer ran.Done()
			<-start
			if _, err := c.ExecContext(ctx, stmt); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	close(start)
	ran.Wait()
	if deleted := 100 - e.count("SELECT count(*) FROM t"); deleted != 1 || ok != 1 {
		t.Fatalf("%d rows deleted, %d clients told it ran; want exactly one", deleted, ok)
	}
}

// With the Control Plane stopped, a statement that needs approval fails
// closed with ERR 1290 naming the outage, while SELECT 1 keeps working.
func TestControlPlaneStoppedFailsClosed(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int); INSERT INTO t VALUES (1)")
	e.cp.Stop()
	ctx := context.Background()
	c := e.conn(addr, "", nil)
	_, err := c.ExecContext(ctx, "DELETE FROM t")
	me := myErr(t, err, 1290)
	if !strings.Contains(me.Message, "the Control Plane is unreachable") || !strings.Contains(me.Message, "nothing was run") {
		t.Fatalf("the ERR does not say why: %q", me.Message)
	}
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 with the Control Plane stopped: %v", err)
	}
	if e.count("SELECT count(*) FROM t") != 1 {
		t.Fatal("the DELETE ran")
	}
}

// spend_approval_on: accepted: an approved statement the upstream refuses
// (ERR) leaves its approval APPROVED; once the upstream accepts it, the
// approval is EXECUTED.
func TestSpendOnAccepted(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{spend: "accepted"})
	ctx := context.Background()
	c := e.conn(addr, "", nil)
	_, err := c.ExecContext(ctx, "DELETE FROM later")
	id := heldID(t, err)
	e.cp.Approve(t, id)
	_, err = c.ExecContext(ctx, "DELETE FROM later")
	myErr(t, err, 1146) // the upstream's: no such table
	if st := e.settled(id); st != "APPROVED" {
		t.Fatalf("after the upstream's ERR the approval is %s, want APPROVED", st)
	}
	e.direct("CREATE TABLE later (id int)")
	if _, err := c.ExecContext(ctx, "DELETE FROM later"); err != nil {
		t.Fatal(err)
	}
	if st := e.settled(id); st != "EXECUTED" {
		t.Fatalf("after the upstream's OK the approval is %s, want EXECUTED", st)
	}
}

// settled returns id's status once it is no longer PROCESSING (the
// Sidecar settles a claimed approval after the client got its answer),
// giving up after 20 s.
func (e *env) settled(id string) string {
	e.t.Helper()
	for range 400 {
		if st := e.cp.Review(e.t, id).Status; st != "PROCESSING" {
			return st
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "PROCESSING"
}

// LOAD DATA LOCAL INFILE with the mariadb CLI is held like a write; once
// approved, the file transfer is relayed and the rows arrive.
func TestLoadDataLocalInfile(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	e.direct("CREATE TABLE t (id int, name varchar(20))")
	file := filepath.Join(t.TempDir(), "rows.tsv")
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "%d\tname%d\n", i, i)
	}
	os.WriteFile(file, []byte(b.String()), 0o644)
	load := fmt.Sprintf("LOAD DATA LOCAL INFILE '%s' INTO TABLE t;\n", file)
	out := e.cli(addr, load, "--local-infile=1")
	ids := approvalIDs(out)
	if len(ids) != 1 || !strings.Contains(out, "ERROR 1227 (42000)") {
		t.Fatalf("LOAD DATA LOCAL was not held:\n%s", out)
	}
	if e.count("SELECT count(*) FROM t") != 0 {
		t.Fatal("rows arrived before the approval")
	}
	e.cp.Approve(t, ids[0])
	if out := e.cli(addr, load, "--local-infile=1"); strings.Contains(out, "ERROR") {
		t.Fatalf("approved LOAD DATA LOCAL:\n%s", out)
	}
	if n := e.count("SELECT count(*) FROM t"); n != 1000 {
		t.Fatalf("%d rows loaded, want 1000", n)
	}
}
