package mssqlconf

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// go-mssqldb's context deadline on WAITFOR DELAY '00:00:10' through the
// listener: the driver sends Attention, the listener relays it, the
// upstream ends the request (DONE with the attention bit) and the call
// returns within 1 s of the deadline; the connection serves the next
// statement. "The upstream saw the Attention" is read from the stand-in;
// a real server's is shown by the call ending 9 s before its delay.
func TestAttentionReachesTheUpstream(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	db := e.open(addr, "disable", "")
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil { // the connection is logged in before the clock starts
		t.Fatal(err)
	}
	before := 0
	if e.mini != nil {
		before = e.mini.Attentions()
	}
	const timeout = 500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	_, err := db.ExecContext(ctx, "WAITFOR DELAY '00:00:10'")
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WAITFOR with a %v deadline: err = %v", timeout, err)
	}
	t.Logf("WAITFOR DELAY '00:00:10' with a %v deadline returned after %v (%v after the deadline)", timeout, took.Round(time.Millisecond), (took - timeout).Round(time.Millisecond))
	if took-timeout > time.Second {
		t.Fatalf("the cancelled call returned %v after its deadline, want within 1 s", took-timeout)
	}
	if e.mini != nil { // stand-in only: it counts each Attention that ended a running request
		deadline := time.Now().Add(5 * time.Second)
		for e.mini.Attentions() == before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if e.mini.Attentions() != before+1 {
			t.Fatalf("the upstream saw %d Attentions, want 1", e.mini.Attentions()-before)
		}
	}
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 after the Attention: %d %v", one, err)
	}
}

// A 100,000-row result (~1 KB a row, ~100 MB: more than the bound, so a
// listener that held it whole would fail) streams through the Sidecar with
// its RSS growing by less than 50 MiB. The stand-in generates the rows as
// it sends them (SELECT TOP n … FROM big); a real server gets a view big
// of the same shape.
func TestLargeResultStreamsWithFlatMemory(t *testing.T) {
	e := newEnv(t)
	e.big()
	addr, s := e.sidecar(listenerOpts{})
	before, _, peak := streamsFlat(t, e, addr, s, 100000, nil)
	if peak-before >= 50<<20 {
		t.Fatalf("Sidecar RSS grew by %d MiB, want < 50 MiB", (peak-before)>>20)
	}
}

// big makes, on a real server, the view big that the stand-in generates.
func (e *env) big() {
	if e.mini == nil {
		e.direct("CREATE VIEW big AS SELECT TOP 1000000 CAST(ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS int) AS id, " +
			"CAST(REPLICATE(N'x', 500) AS nvarchar(500)) AS payload FROM sys.all_objects a CROSS JOIN sys.all_objects b CROSS JOIN sys.all_objects c")
	}
}

// streamsFlat reads SELECT TOP n id, payload FROM big through the Sidecar
// s listening at addr and fails unless all n rows (over 50 MiB) arrive;
// check, when set, sees each payload. It returns the Sidecar's RSS before
// the result, its peak over the first tenth of the rows, and its peak.
func streamsFlat(t *testing.T, e *env, addr string, s *harness.Sidecar, n int, check func(string)) (before, tenth, peak int64) {
	t.Helper()
	// The listener warms the T-SQL grammar in the background at start (its
	// prediction cache, tens of MiB kept for the process's life): the
	// measure starts once that is done.
	s.WaitFor(t, "mssql T-SQL analyzer warmed", 60*time.Second)
	db := e.open(addr, "disable", "")
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil { // warm the connection
		t.Fatal(err)
	}
	// The first sight of a statement fills the T-SQL parser's prediction
	// cache (tens of MiB of analysis memory, kept for the process's life,
	// not the result): the statement is seen once with one row before the
	// measured run, so the growth below is the streaming of the result.
	warm, err := db.Query("SELECT TOP 1 id, payload FROM big")
	if err != nil {
		t.Fatal(err)
	}
	for warm.Next() {
	}
	warm.Close()
	before = harness.RSS(t, s.PID())
	start := time.Now()
	rows, err := db.Query(fmt.Sprintf("SELECT TOP %d id, payload FROM big", n))
	if err != nil {
		t.Fatal(err)
	}
	count, bytes := 0, 0
	peak = before
	for rows.Next() {
		var id int
		var payload string
		if err := rows.Scan(&id, &payload); err != nil {
			t.Fatal(err)
		}
		if check != nil {
			check(payload)
		}
		count++
		bytes += 4 + 2*len(payload)
		if count%5000 == 0 {
			peak = max(peak, harness.RSS(t, s.PID()))
		}
		if count == n/10 {
			tenth = peak
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	peak = max(peak, harness.RSS(t, s.PID()))
	t.Logf("%d rows, %d MB through the Sidecar in %v; Sidecar RSS %d MiB before, peak %d MiB (growth %d MiB)",
		count, bytes>>20, time.Since(start).Round(time.Millisecond), before>>20, peak>>20, (peak-before)>>20)
	if count != n || bytes < 50<<20 {
		t.Fatalf("got %d rows (%d bytes), want %d rows over 50 MiB", count, bytes, n)
	}
	return before, tenth, peak
}

// Windows authentication (go-mssqldb with DOMAIN\user: NTLM in the LOGIN7's
// SSPI; tedious with authentication type ntlm) is refused by the listener
// with ERROR 18456 and a message that says why and what to use instead;
// nothing reaches the upstream's login.
func TestWindowsAuthenticationRefused(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{})
	logins := 0
	if e.mini != nil {
		logins = len(e.mini.Logins())
	}
	db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://%s:%s@%s?database=%s&encrypt=disable", "CORP%5Cagent", "pw", addr, e.db))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Ping()
	me := msErr(t, err, 18456)
	if !strings.Contains(me.Message, "Windows authentication") || !strings.Contains(me.Message, "SQL Server login") {
		t.Fatalf("go-mssqldb NTLM login: %q does not say why", me.Message)
	}
	t.Logf("go-mssqldb (NTLM): %d state %d: %s", me.Number, me.State, me.Message)

	res := e.nodeWith("tedious", addr, map[string]any{"encrypt": false, "ntlmDomain": "CORP", "user": "agent"}, nodeStmt{SQL: "SELECT 1"})
	if r := res[0]; r.OK || !strings.Contains(r.Message, "Windows authentication") {
		t.Fatalf("tedious NTLM login: %+v", r)
	} else {
		t.Logf("tedious (NTLM): %s", r.Message)
	}
	if e.mini != nil && len(e.mini.Logins()) != logins { // stand-in only
		t.Fatalf("a Windows login reached the upstream: %+v", e.mini.Logins()[logins:])
	}
}
