package faults

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// cpKills is how many times TestControlPlaneKilledMidRequest kills a
// Control Plane.
const cpKills = 6

// killAfter is how long the kill fault waits after forwarding a call before
// it kills the Control Plane: up to 3 ms, so the call is sometimes not yet
// read, sometimes in the middle of its store transaction, sometimes applied
// with its answer unsent.
func killAfter() time.Duration { return time.Duration(rand.Int64N(int64(3 * time.Millisecond))) }

// The kill -9 of a Control Plane replica mid-request: two replicas
// on one PostgreSQL store, each Sidecar calling its own through a proxy.
// Every fourth claim or settle a proxy sees (while neither its Control
// Plane is down nor six kills were done) is forwarded and, while it is with
// the Control Plane, the Control Plane's process gets SIGKILL; the Sidecar's
// connection is reset, and the Control Plane is started again on the same
// address and store. Meanwhile the Sidecar's calls to it are refused and the
// agents resend as told. The checker holds: every statement ran once under
// exactly one EXECUTED approval, none is left PROCESSING.
func TestControlPlaneKilledMidRequest(t *testing.T) {
	f := startFleet(t, harness.FreshDatabase(t), 4*time.Second)
	killed := make(chan int, len(f.cps))
	down := make([]atomic.Bool, len(f.cps))
	var calls, kills atomic.Int64
	var stopped atomic.Bool
	for i, p := range f.proxies {
		cp := f.cps[i]
		p.kill = func() {
			cp.Kill()
			killed <- i
		}
		p.setPick(func(r *http.Request) (fault, bool) {
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/claim") && !strings.HasSuffix(r.URL.Path, "/settle") {
				return "", false
			}
			if calls.Add(1)%4 != 1 || stopped.Load() || down[i].Load() || kills.Load() >= cpKills {
				return "", false
			}
			down[i].Store(true)
			kills.Add(1)
			return kill, true
		})
	}
	restart := func(i int) {
		f.cps[i].Restart(t)
		down[i].Store(false)
	}
	run := f.run(4, 3)
	run.name = "kill-"
	run.during = func(stop <-chan struct{}) {
		for {
			select {
			case <-stop:
				stopped.Store(true)
				for i := range down { // a kill of the last settles
					for down[i].Load() {
						restart(<-killed)
					}
				}
				return
			case i := <-killed:
				restart(i)
			}
		}
	}
	v := run.check(t)
	var faulted []string
	for _, p := range f.proxies {
		faulted = append(faulted, p.droppedCalls()...)
	}
	if len(faulted) == 0 {
		t.Fatal("no Control Plane was killed: the scenario did not happen")
	}
	t.Logf("Control Plane replicas killed %d times mid-call (%s); %s", len(faulted), strings.Join(faulted, ", "), v)
}
