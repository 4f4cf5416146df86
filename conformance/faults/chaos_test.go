package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hoophq/sidecar/conformance/harness"
)

// chaosShare is the share of the Sidecars' writes to the Control Plane
// (file, claim, settle, renew) that a proxy faults.
const chaosShare = 0.25

// The checker of issue 30 point 4, in small: two Control Plane replicas on
// one PostgreSQL store, each behind a proxy that faults a quarter of the
// writes at random (answers lost after the call was applied, answered past
// the timeout, half an answer, a call taken and never answered); two
// Sidecar replicas, one per Control Plane, one spending approvals when sent
// and one when accepted; agents on each sending distinct INSERTs and
// resending as told; an approver approving whatever is PENDING. The
// histories are then read: the upstream's rows and every approval the
// Control Plane holds. Nothing ran twice or without an approval, every
// statement ran once, and every statement has exactly one EXECUTED
// approval: no approval was spent with nothing run, none is left
// PROCESSING.
func TestChaosEveryApprovedStatementRunsOnce(t *testing.T) {
	dbURL := harness.FreshDatabase(t)
	direct := connect(t, dbURL)
	exec(t, direct, "CREATE TABLE runs (v text)")
	storeURL := harness.FreshDatabase(t)
	cps := []*harness.ControlPlane{
		harness.StartControlPlane(t, harness.CPOptions{Store: storeURL, Sidecars: map[string]string{"test": sidecarToken}, ProcessingLease: "5s"}),
		harness.StartControlPlane(t, harness.CPOptions{Store: storeURL, Sidecars: map[string]string{"test": sidecarToken}, ProcessingLease: "5s"}),
	}
	var agents []string
	var proxies []*answerDropper
	for i, spend := range []string{"sent", "accepted"} {
		p := newAnswerDropper(t, cps[i].URL, nil)
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		kinds := []fault{drop, late, half, hang}
		p.pick = func(r *http.Request) (fault, bool) {
			if r.Method != http.MethodPost || rng.Float64() >= chaosShare {
				return "", false
			}
			return kinds[rng.IntN(len(kinds))], true
		}
		proxies = append(proxies, p)
		_, agentURL := insertSidecar(t, p.URL, harness.FreeAddr(t), dbURL, spend)
		agents = append(agents, agentURL)
	}

	stop := make(chan struct{})
	approved := make(chan int, 1)
	go func() { approved <- harness.ApproveWhilePending(cps[0].URL, stop) }()

	const perAgent, agentsPerReplica = 3, 3
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	sends := 0
	var want []string
	for r, agentURL := range agents {
		for a := range agentsPerReplica {
			var mine []string
			for n := range perAgent {
				mine = append(mine, fmt.Sprintf("r%d-a%d-s%d", r, a, n))
			}
			want = append(want, mine...)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, v := range mine {
					n, err := sendUntilRun(agentURL, fmt.Sprintf("INSERT INTO runs VALUES ('%s')", v), 90*time.Second)
					mu.Lock()
					sends += n
					if err != nil {
						failures = append(failures, v+": "+err.Error())
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	close(stop)
	nApproved := <-approved
	for _, f := range failures {
		t.Errorf("a statement never ran: %s", f)
	}

	ran := harness.CountValues(t, dbURL, "SELECT v FROM runs")
	time.Sleep(6 * time.Second) // past the lease: nothing may stay PROCESSING
	executed, processing := map[string]int{}, 0
	for _, r := range cps[1].Reviews(t) {
		v := between(r.Statement, "VALUES ('", "')")
		switch r.Status {
		case "EXECUTED":
			executed[v]++
		case "PROCESSING":
			processing++
			t.Errorf("approval %s (%s) is PROCESSING after its lease", r.ID, v)
		}
	}
	violations := 0
	for _, v := range want {
		if ran[v] != 1 {
			violations++
			t.Errorf("%s ran %d times, want once", v, ran[v])
		}
		if executed[v] != 1 {
			violations++
			t.Errorf("%s has %d EXECUTED approvals, want one (the one that ran it)", v, executed[v])
		}
	}
	for v, n := range ran {
		if executed[v] == 0 {
			violations++
			t.Errorf("%s ran %d times without an EXECUTED approval", v, n)
		}
	}
	var faulted []string
	for _, p := range proxies {
		faulted = append(faulted, p.droppedCalls()...)
	}
	if len(faulted) == 0 {
		t.Fatal("no call was faulted: the scenario did not happen")
	}
	t.Logf("chaos: %d statements on 2 Sidecar and 2 Control Plane replicas, %d sends, %d approvals given, %d Control Plane writes faulted (%s); violations: %d",
		len(want), sends, nApproved, len(faulted), countKinds(faulted), violations)
}

// sendUntilRun sends sql on a new connection until it runs, waiting 300 ms
// after each denial (held, unavailable, in use), as an agent told to resend
// does; it returns the sends made.
func sendUntilRun(agentURL, sql string, limit time.Duration) (int, error) {
	deadline := time.Now().Add(limit)
	for n := 1; ; n++ {
		c, err := pgx.Connect(context.Background(), agentURL)
		if err == nil {
			_, err = c.Exec(context.Background(), sql)
			c.Close(context.Background())
		}
		if err == nil {
			return n, nil
		}
		if time.Now().After(deadline) {
			return n, fmt.Errorf("still denied after %d sends: %v", n, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return s
	}
	v, _, _ := strings.Cut(after, to)
	return v
}

func countKinds(calls []string) string {
	n := map[string]int{}
	for _, c := range calls {
		k, _, _ := strings.Cut(c, " ")
		n[k]++
	}
	return fmt.Sprintf("drop %d, late %d, half %d, hang %d", n["drop"], n["late"], n["half"], n["hang"])
}
