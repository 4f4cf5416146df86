package postgres

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The run: psql is killed (timeout 3) while its DELETE waits in wait
// mode. It printed why it hung (a NOTICE naming the approval); the Sidecar
// stops reading the approval; a person approves afterwards with the Control
// Plane's CLI; the rows are still there, the approval reads APPROVED (not
// EXECUTED), and the audit line says client_gone. The identical resend then
// runs once.
func TestPsqlKilledWhileWaiting(t *testing.T) {
	e := newEnv(t)
	// mode: wait; wait_timeout far beyond the test, so only the hang-up can end the wait.
	longWait := func(listen, spend string) string {
		return strings.Replace(e.sidecarConfig(listen, spend), "wait_timeout: 20s", "wait_timeout: 10m", 1)
	}
	addr, sidecar := e.sidecarProcess(longWait, "sent")
	e.direct("CREATE TABLE t (id int)")
	e.direct("INSERT INTO t VALUES (7)")
	host, port, _ := net.SplitHostPort(addr)
	conninfo := fmt.Sprintf("host=%s port=%s user=postgres dbname=%s sslmode=disable application_name=agent", host, port, e.db)
	cmd := exec.Command("timeout", "3", "psql", "-X", conninfo, "-c", "DELETE FROM t WHERE id = 7")
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 124 {
		t.Fatalf("psql was not killed by timeout (err %v):\n%s", err, out)
	}
	reviews := e.cp.Reviews(t)
	if len(reviews) != 1 {
		t.Fatalf("%d approval requests, want 1", len(reviews))
	}
	id := reviews[0].ID
	if want := "NOTICE:  statement held for approval " + id + "; waiting for a person to approve or reject it"; !strings.Contains(string(out), want) {
		t.Fatalf("psql did not show why it waited (%q):\n%s", want, out)
	}
	reads := e.cp.QuietReads(t, id, 5*time.Second)
	if reads < 1 {
		t.Fatal("the Sidecar never read the approval while psql waited (premise)")
	}
	e.cp.ApproveAndExpectNoReads(t, id, reads)
	if e.count("SELECT count(*) FROM t WHERE id = 7") != 1 {
		t.Fatal("the DELETE of the killed psql ran")
	}
	if !strings.Contains(sidecar.Output(), `"decision":"client_gone"`) {
		t.Fatalf("no client_gone audit line:\n%s", sidecar.Output())
	}
	resend := exec.Command("psql", "-X", conninfo, "-c", "DELETE FROM t WHERE id = 7") // byte for byte
	resend.Env = cmd.Env
	if out, err := resend.CombinedOutput(); err != nil || !strings.Contains(string(out), "DELETE 1") {
		t.Fatalf("the identical resend: %v\n%s", err, out)
	}
	if st := e.cp.Review(t, id).Status; st != "EXECUTED" {
		t.Fatalf("after the resend %s, want EXECUTED", st)
	}
}

// returnConfig is sidecarConfig with the listener in return mode.
func (e *env) returnConfig(listen, spend string) string {
	return strings.Replace(e.sidecarConfig(listen, spend), "mode: wait", "mode: return", 1)
}

// The transaction through a return-mode listener, psql -v
// ON_ERROR_STOP=0: the denial fails the transaction as any error does, so
// the INSERT after it gets PostgreSQL's own 25P02, COMMIT answers ROLLBACK,
// and neither INSERT is in the table.
func TestPsqlDenialFailsTheTransaction(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecarProcess(e.returnConfig, "sent")
	e.direct("CREATE TABLE t (id int)")
	e.direct("INSERT INTO t VALUES (7)")
	out := e.psql(addr, "agent", "BEGIN;\nINSERT INTO t VALUES (10);\nDELETE FROM t WHERE id = 7;\nINSERT INTO t VALUES (11);\nCOMMIT;\n")
	for _, want := range []string{"ERROR:  statement held for human approval",
		"ERROR:  current transaction is aborted, commands ignored until end of transaction block", "ROLLBACK"} {
		if !strings.Contains(out, want) {
			t.Fatalf("psql does not show %q:\n%s", want, out)
		}
	}
	if n := e.count("SELECT count(*) FROM t WHERE id IN (10, 11)"); n != 0 {
		t.Fatalf("%d INSERTs committed around the denied DELETE:\n%s", n, out)
	}
	if e.count("SELECT count(*) FROM t WHERE id = 7") != 1 {
		t.Fatal("the denied DELETE ran")
	}
	// Outside a transaction a denial changes nothing for what follows.
	out = e.psql(addr, "agent", "DELETE FROM t WHERE id = 7;\nINSERT INTO t VALUES (12);\n")
	if !strings.Contains(out, "INSERT 0 1") || e.count("SELECT count(*) FROM t WHERE id = 12") != 1 {
		t.Fatalf("the INSERT after a denial outside a transaction:\n%s", out)
	}
}
