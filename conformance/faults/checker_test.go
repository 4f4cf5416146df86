package faults

import (
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// checkerRun is one run of the checker: agents on each of agents
// (a listener URL per Sidecar replica) send distinct held statements,
// each resent as the denials tell it until it runs, while an approver
// approves whatever is PENDING at cp and during injects the scenario's
// fault; then the histories are read (verdict).
type checkerRun struct {
	// ran reads the upstream's own record: the rows of its table runs, how
	// many of each value.
	ran    func(t *testing.T) map[string]int
	cp     *harness.ControlPlane // approved at and read at the end
	agents []string
	// perAgent statements per agent, agentsPerURL agents per agents entry.
	perAgent, agentsPerURL int
	// name prefixes each statement's value (distinct per run).
	name string
	// sql is the statement that records value v in runs (one row of v
	// each time it runs); nil is INSERT INTO runs VALUES ('v').
	sql func(v string) string
	// runs is how many times each statement must run (each under its own
	// EXECUTED approval); 0 is once.
	runs int
	// send sends one statement until it runs (nil: sendUntilRun).
	send func(agentURL, sql string, limit time.Duration) (int, error)
	// during, if set, runs in the test's goroutine while the agents send;
	// it returns when stop is closed (every agent is done).
	during func(stop <-chan struct{})
	// lease is the Control Planes' processing_lease: past it nothing may
	// be PROCESSING.
	lease time.Duration
}

// verdict is what the checker found.
type verdict struct {
	statements, sends, approved int
	ran, executed, violations   int
}

func (v verdict) String() string {
	return fmt.Sprintf("%d statements, %d sends, %d approvals given, %d runs by the upstream's record, %d approvals EXECUTED; violations: %d",
		v.statements, v.sends, v.approved, v.ran, v.executed, v.violations)
}

// check runs c and reports every violation with t.Errorf: a statement that
// ran other than c.runs times, or without an EXECUTED approval each time
// (nothing ran without an approval, no approval ran twice, every EXECUTED
// approval was forwarded, every approval given either ran or is left
// usable), or an approval still PROCESSING after its lease.
func (c checkerRun) check(t *testing.T) verdict {
	t.Helper()
	if c.sql == nil {
		c.sql = func(v string) string { return fmt.Sprintf("INSERT INTO runs VALUES ('%s')", v) }
	}
	if c.runs == 0 {
		c.runs = 1
	}
	if c.send == nil {
		c.send = sendUntilRun
	}
	stopApprover := make(chan struct{})
	approved := make(chan int, 1)
	go func() { approved <- harness.ApproveWhilePending(c.cp.URL, stopApprover) }()

	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	var want []string
	v := verdict{}
	for r, agentURL := range c.agents {
		for a := range c.agentsPerURL {
			var mine []string
			for n := range c.perAgent {
				mine = append(mine, fmt.Sprintf("%sr%d-a%d-s%d", c.name, r, a, n))
			}
			want = append(want, mine...)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, val := range mine {
					n, err := c.send(agentURL, c.sql(val), 90*time.Second)
					mu.Lock()
					v.sends += n
					if err != nil {
						failures = append(failures, val+": "+err.Error())
					}
					mu.Unlock()
				}
			}()
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if c.during != nil {
		c.during(done)
	}
	<-done
	close(stopApprover)
	v.approved = <-approved
	v.statements = len(want)
	for _, f := range failures {
		t.Errorf("an agent gave up or was wronged: %s", f)
	}

	ran := c.ran(t)
	reviews := settledReviews(t, c.cp, c.lease+5*time.Second)
	executed := map[string]int{}
	for _, r := range reviews {
		val := between(r.Statement, "VALUES ('", "')")
		switch r.Status {
		case "EXECUTED":
			executed[val]++
			v.executed++
		case "PROCESSING":
			t.Errorf("approval %s (%s) is PROCESSING after its lease", r.ID, val)
			v.violations++
		}
	}
	for _, val := range want {
		if ran[val] != c.runs {
			v.violations++
			t.Errorf("%s ran %d times, want %d", val, ran[val], c.runs)
		}
		if executed[val] != c.runs {
			v.violations++
			t.Errorf("%s has %d EXECUTED approvals, want %d (one per run)", val, executed[val], c.runs)
		}
	}
	for val, n := range ran {
		v.ran += n
		if executed[val] < n {
			v.violations++
			t.Errorf("%s ran %d times under %d EXECUTED approvals", val, n, executed[val])
		}
	}
	return v
}

// settledReviews lists cp's approvals once none is PROCESSING, or after
// limit (a lease longer than that is the checker's violation).
func settledReviews(t *testing.T, cp *harness.ControlPlane, limit time.Duration) []harness.Review {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		rs := cp.Reviews(t)
		processing := false
		for _, r := range rs {
			processing = processing || r.Status == "PROCESSING"
		}
		if !processing || time.Now().After(deadline) {
			return rs
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// upstream is a kind of server the fleet's Sidecars are in front of.
type upstream struct {
	// fresh creates a database with the table runs (v, text) and returns
	// its URL.
	fresh func(t *testing.T) string
	// sidecar starts a Sidecar on listen with one return-mode listener that
	// holds INSERT, spending approvals on spend, calling the Control Plane
	// at cpURL, in front of the server at host (host:port); it returns the
	// URL (or DSN) an agent uses for dbURL's database through it.
	sidecar func(t *testing.T, cpURL, listen, host, dbURL, spend string) string
	// ran counts the rows of each value in dbURL's table runs.
	ran func(t *testing.T, dbURL string) map[string]int
	// host is the server's host:port in dbURL.
	host func(dbURL string) string
}

// postgresUpstream is the PostgreSQL server harness.FreshDatabase uses.
var postgresUpstream = upstream{
	fresh: func(t *testing.T) string {
		u := harness.FreshDatabase(t)
		exec(t, connect(t, u), "CREATE TABLE runs (v text)")
		return u
	},
	sidecar: func(t *testing.T, cpURL, listen, host, dbURL, spend string) string {
		u, _ := url.Parse(dbURL)
		u.Host = host
		_, agentURL := insertSidecar(t, cpURL, listen, u.String(), spend)
		return agentURL
	},
	ran: func(t *testing.T, dbURL string) map[string]int {
		return harness.CountValues(t, dbURL, "SELECT v FROM runs")
	},
	host: func(dbURL string) string {
		u, _ := url.Parse(dbURL)
		return u.Host
	},
}

// fleet is the checker's topology: two Control Plane replicas on one store,
// two Sidecar replicas (one spending approvals when sent, one when
// accepted), each calling its own Control Plane through a proxy
// (proxy_test.go; it forwards every call until its pick is set), in front
// of a fresh upstream database with the table runs (v text).
type fleet struct {
	up      upstream
	dbURL   string
	lease   time.Duration
	cps     []*harness.ControlPlane
	proxies []*answerDropper
	agents  []string
}

// startFleet is startFleetVia on PostgreSQL, its Sidecars calling it
// directly.
func startFleet(t *testing.T, storeURL string, lease time.Duration) *fleet {
	t.Helper()
	return startFleetVia(t, postgresUpstream, storeURL, lease, nil)
}

// startFleetVia starts a fleet in front of up, its Control Planes on
// storeURL with lease as their processing_lease, its Sidecars' upstream at
// via(host), host being the server's host:port (nil: host itself).
func startFleetVia(t *testing.T, up upstream, storeURL string, lease time.Duration, via func(host string) string) *fleet {
	t.Helper()
	f := &fleet{up: up, dbURL: up.fresh(t), lease: lease}
	host := up.host(f.dbURL)
	if via != nil {
		host = via(host)
	}
	for _, spend := range []string{"sent", "accepted"} {
		cp := harness.StartControlPlane(t, harness.CPOptions{Store: storeURL, Sidecars: map[string]string{"test": sidecarToken}, ProcessingLease: lease.String()})
		p := newAnswerDropper(t, cp.URL, nil)
		p.pick = func(*http.Request) (fault, bool) { return "", false }
		agentURL := up.sidecar(t, p.URL, harness.FreeAddr(t), host, f.dbURL, spend)
		f.cps, f.proxies, f.agents = append(f.cps, cp), append(f.proxies, p), append(f.agents, agentURL)
	}
	return f
}

// run is a checker run on f: perAgent statements from each of agentsPerURL
// agents per Sidecar, approved at and read from the second Control Plane.
func (f *fleet) run(perAgent, agentsPerURL int) checkerRun {
	return checkerRun{ran: func(t *testing.T) map[string]int { return f.up.ran(t, f.dbURL) },
		cp: f.cps[1], agents: f.agents, perAgent: perAgent, agentsPerURL: agentsPerURL, lease: f.lease}
}
