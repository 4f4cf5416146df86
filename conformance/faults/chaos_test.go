package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
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
//
// The Control Planes' processing_lease is 3 s, the least they take, so a
// claim whose tries outlast it (each try up to the Sidecar's 2 s timeout)
// needs the Sidecar's renewals. The faults are drawn from a seed that
// differs per run and is logged; HOOP_CHAOS_SEED=N replays one.
func TestChaosEveryApprovedStatementRunsOnce(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("HOOP_CHAOS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("HOOP_CHAOS_SEED=%q: want a whole number: %v", s, err)
		}
		seed = n
	}
	t.Logf("chaos: fault seed %d (HOOP_CHAOS_SEED=%d replays these draws)", seed, seed)
	f := startFleet(t, harness.FreshDatabase(t), 3*time.Second)
	for i, p := range f.proxies {
		rng := rand.New(rand.NewPCG(uint64(i), seed))
		kinds := []fault{drop, late, half, hang}
		p.setPick(func(r *http.Request) (fault, bool) {
			if r.Method != http.MethodPost || rng.Float64() >= chaosShare {
				return "", false
			}
			return kinds[rng.IntN(len(kinds))], true
		})
	}
	v := f.run(3, 3).check(t)
	var faulted []string
	for _, p := range f.proxies {
		faulted = append(faulted, p.droppedCalls()...)
	}
	if len(faulted) == 0 {
		t.Fatal("no call was faulted: the scenario did not happen")
	}
	t.Logf("chaos: 2 Sidecar and 2 Control Plane replicas, %d Control Plane writes faulted (%s); %s", len(faulted), countKinds(faulted), v)
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
