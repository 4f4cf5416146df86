package faults

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hoophq/sidecar/conformance/harness"
)

const sidecarToken = "test-sidecar-token"

// The reproduction, as binaries: a proxy in front of the reference
// Control Plane forwards every call but loses the answers of the first
// claims (the Control Plane applied them). A held `INSERT INTO t VALUES (7)`
// on a return-mode postgres listener is approved; the agent resends as the
// denials tell it. The INSERT runs exactly once, its approval reads
// EXECUTED, and the next identical send is held under a new approval.
//
//   - one answer lost: the Sidecar asks again within the call (the same
//     claim key) and the first resend runs;
//   - three lost (every try of one call): the first resend is denied as
//     unavailable, the next one repeats the claim with its key and runs;
//   - spend_approval_on: accepted, the claim's and the settle's answers lost;
//   - answers that arrive past the Sidecar's timeout, a Control Plane that
//     takes the claim and never answers (nothing applied), answers reset
//     half-way through their body;
//   - a claim whose tries outlast the Control Plane's lease (3 s lease,
//     three tries 2 s apart, the first one applied): the Sidecar renews the
//     claim's lease while the claim is in flight and while it waits for the
//     resend, so the lease does not lapse to EXECUTED with nothing run.
func TestLostControlPlaneAnswerRunsTheApprovedInsertOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spend string
		plans map[string]plan
		lease string // the Control Plane's processing_lease ("": its default)
	}{
		{"one claim answer lost", "sent", map[string]plan{"/claim": {drop, 1}}, ""},
		{"every try of a claim lost", "sent", map[string]plan{"/claim": {drop, 3}}, ""},
		{"accepted, claim and settle answers lost", "accepted", map[string]plan{"/claim": {drop, 1}, "/settle": {drop, 1}}, ""},
		{"accepted, every try of a claim lost", "accepted", map[string]plan{"/claim": {drop, 3}}, ""},
		{"claim answered past the timeout", "sent", map[string]plan{"/claim": {late, 1}}, ""},
		{"every claim try answered past the timeout", "accepted", map[string]plan{"/claim": {late, 3}}, ""},
		{"a Control Plane that accepts the claim and never answers", "sent", map[string]plan{"/claim": {hang, 3}}, ""},
		{"claim and settle answers reset half-way", "accepted", map[string]plan{"/claim": {half, 1}, "/settle": {half, 1}}, ""},
		{"claim tries that outlast a 3 s lease", "sent", map[string]plan{"/claim": {late, 3}}, "3s"},
		{"claim tries that outlast a 3 s lease, accepted", "accepted", map[string]plan{"/claim": {late, 3}}, "3s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbURL := harness.FreshDatabase(t)
			direct := connect(t, dbURL)
			exec(t, direct, "CREATE TABLE t (v int)")
			cp := harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"test": sidecarToken}, ProcessingLease: tc.lease})
			want := 0
			for _, p := range tc.plans {
				want += p.n
			}
			proxy := newAnswerDropper(t, cp.URL, maps.Clone(tc.plans))
			_, agentURL := insertSidecar(t, proxy.URL, harness.FreeAddr(t), dbURL, tc.spend)

			id, sends := "", 0
			for ran := false; !ran; {
				if sends++; sends > 5 {
					t.Fatalf("the INSERT did not run after %d sends (answers dropped: %v)", sends-1, proxy.droppedCalls())
				}
				err := sendOnce(t, agentURL, "INSERT INTO t VALUES (7)")
				var pe *pgconn.PgError
				switch {
				case err == nil:
					ran = true
				case errors.As(err, &pe):
					ids := harness.ApprovalIDs(pe.Message)
					if id == "" && len(ids) == 1 {
						id = ids[0]
						cp.Approve(t, id)
					} else if len(ids) == 1 && ids[0] != id {
						t.Fatalf("send %d was filed as a new approval %s (the first, %s, reads %s): %s",
							sends, ids[0], id, cp.Review(t, id).Status, pe.Message)
					}
					t.Logf("send %d denied: %s", sends, pe.Message)
				default:
					t.Fatalf("send %d: %v", sends, err)
				}
			}
			if n := count(t, direct, "SELECT count(*) FROM t WHERE v = 7"); n != 1 {
				t.Fatalf("the INSERT ran %d times, want exactly once", n)
			}
			if r := cp.Review(t, id); r.Status != "EXECUTED" || r.SettledBy != "" {
				t.Fatalf("approval %s reads %s (settled by %q) after the INSERT ran, want EXECUTED, settled by the Sidecar", id, r.Status, r.SettledBy)
			}
			err := sendOnce(t, agentURL, "INSERT INTO t VALUES (7)")
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || len(harness.ApprovalIDs(pe.Message)) != 1 || harness.ApprovalIDs(pe.Message)[0] == id {
				t.Fatalf("the send after the run: %v; want held under a new approval", err)
			}
			if n := count(t, direct, "SELECT count(*) FROM t WHERE v = 7"); n != 1 {
				t.Fatalf("the INSERT ran %d times after the next send, want once", n)
			}
			if got := proxy.droppedCalls(); len(got) != want {
				t.Fatalf("answers dropped: %v, want %d (the scenario did not happen)", got, want)
			}
			t.Logf("%s: ran once after %d sends; answers dropped: %v", tc.name, sends, proxy.droppedCalls())
		})
	}
}

// sendOnce runs sql on a new connection to the listener, as an agent that
// connects per statement does.
func sendOnce(t *testing.T, url, sql string) error {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	_, err = c.Exec(context.Background(), sql)
	return err
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func exec(t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func count(t *testing.T, c *pgx.Conn, sql string) int {
	t.Helper()
	var n int
	if err := c.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}
