package soak

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/hoophq/sidecar/conformance/harness"
)

const sidecarToken = "test-sidecar-token"

// envDuration reads a duration from name, else def.
func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// sample is one reading of the Sidecar's /metrics.
type sample struct {
	at         time.Duration
	rss        float64 // bytes
	goroutines float64
}

func scrape(adminURL string) (sample, error) {
	resp, err := http.Get(adminURL + "/metrics")
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	var s sample
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for name, dst := range map[string]*float64{"process_resident_memory_bytes ": &s.rss, "go_goroutines ": &s.goroutines} {
			if v, ok := strings.CutPrefix(line, name); ok {
				*dst, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			}
		}
	}
	return s, sc.Err()
}

// The soak: HOOP_SOAK_AGENTS connections per protocol (postgres, mysql,
// http) send a statement every 200 ms for HOOP_SOAK_DURATION; one in ten is
// a write a rule holds (a distinct INSERT, or DELETE /items/<v>), resent as
// the denial says until it runs; a scripted approver approves; the Control
// Plane restarts every 30 s. Verdict: every write that ran ran once, under
// exactly one EXECUTED approval, and no approval is EXECUTED for a write
// that did not run; the goroutines come back to where they started.
func TestSoak(t *testing.T) {
	duration := envDuration(t, "HOOP_SOAK_DURATION", 2*time.Minute)
	perProtocol := envInt(t, "HOOP_SOAK_AGENTS", 30)

	pgURL := harness.FreshDatabase(t)
	pgu, _ := url.Parse(pgURL)
	pgDirect, err := pgx.Connect(context.Background(), pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pgDirect.Close(context.Background())
	if _, err := pgDirect.Exec(context.Background(), "CREATE TABLE soak (v text)"); err != nil {
		t.Fatal(err)
	}
	my := mysqlDatabase(t)

	var httpMu sync.Mutex
	httpRuns := map[string]int{}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v, ok := strings.CutPrefix(r.URL.Path, "/items/"); ok && r.Method == http.MethodDelete {
			httpMu.Lock()
			httpRuns[v]++
			httpMu.Unlock()
		}
		io.WriteString(w, `{"ok":true}`)
	}))
	defer api.Close()

	storePath := filepath.Join(t.TempDir(), "cp.db")
	cp := harness.StartControlPlane(t, harness.CPOptions{Store: "sqlite:" + storePath,
		Sidecars: map[string]string{"test": sidecarToken}, ProcessingLease: "10s"})
	pgListen, myListen, httpListen, admin := harness.FreeAddr(t), harness.FreeAddr(t), harness.FreeAddr(t), harness.FreeAddr(t)
	harness.StartSidecar(t, harness.SidecarOptions{Token: sidecarToken, Config: fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
admin: {listen: %s}
log: {format: text, level: info}
approval_rules:
  - {name: inserts, match: {actions: [INSERT]}}
  - {name: deletes, match: {actions: [DELETE]}}
listeners:
  - {name: pg, protocol: postgres, listen: %s, upstream: %s, mode: return, approval_rules: [inserts]}
  - {name: my, protocol: mysql, listen: %s, upstream: %s, mode: return, spend_approval_on: accepted, approval_rules: [inserts]}
  - {name: api, protocol: http, listen: %s, upstream: %s, mode: return, approval_rules: [deletes]}
`, cp.URL, admin, pgListen, pgu.Host, myListen, my.addr, httpListen, api.URL)})
	adminURL := "http://" + admin
	start, err := scrape(adminURL)
	if err != nil {
		t.Fatal(err)
	}

	stopApprover := make(chan struct{})
	approvedN := make(chan int, 1)
	go func() { approvedN <- harness.ApproveWhilePending(cp.URL, stopApprover) }()

	var statements, heldRan, heldGaveUp atomic.Int64
	var ranMu sync.Mutex
	ranOK := map[string]bool{} // writes an agent saw run
	tried := map[string]bool{} // every write sent
	record := func(v string, ok bool) {
		ranMu.Lock()
		defer ranMu.Unlock()
		tried[v] = true
		if ok {
			ranOK[v] = true
			heldRan.Add(1)
		} else {
			heldGaveUp.Add(1)
		}
	}
	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	var agentErrs sync.Map
	for i := range perProtocol {
		for _, proto := range []string{"pg", "my", "http"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := newAgent(proto, i, pgListen, pgu.Path, myListen, my.db, httpListen)
				if err != nil {
					agentErrs.Store(fmt.Sprintf("%s-%d", proto, i), err)
					return
				}
				defer a.close()
				for n := 0; time.Now().Before(deadline); n++ {
					time.Sleep(200 * time.Millisecond)
					if n%10 != 9 {
						if a.read() == nil {
							statements.Add(1)
						}
						continue
					}
					v := fmt.Sprintf("s%s-%d-%d", proto, i, n)
					ok := a.writeUntilRun(v, 60*time.Second)
					if ok {
						statements.Add(1)
					}
					record(v, ok)
				}
			}()
		}
	}

	var samples []sample
	began := time.Now()
	restarts := 0
	for time.Now().Before(deadline) {
		wait := min(10*time.Second, time.Until(deadline))
		time.Sleep(wait)
		if s, err := scrape(adminURL); err == nil {
			s.at = time.Since(began).Round(time.Second)
			samples = append(samples, s)
		}
		if el := time.Since(began); el/(30*time.Second) > time.Duration(restarts) && time.Now().Before(deadline) {
			cp.Restart(t)
			restarts++
		}
	}
	wg.Wait()
	close(stopApprover)
	approved := <-approvedN
	agentErrs.Range(func(k, v any) bool { t.Errorf("agent %s could not connect: %v", k, v); return true })
	time.Sleep(3 * time.Second) // connections closed, sessions ended
	end, _ := scrape(adminURL)

	// The histories: what each upstream ran, what the Control Plane holds.
	ran := harness.CountValues(t, pgURL, "SELECT v FROM soak")
	for _, v := range my.values(t) {
		ran[v]++
	}
	httpMu.Lock()
	for v, n := range httpRuns {
		ran[v] += n
	}
	httpMu.Unlock()
	time.Sleep(11 * time.Second) // past the lease: nothing may stay PROCESSING
	executed, processing := approvalsByValue(t, storePath)

	violations := 0
	fail := func(f string, a ...any) { violations++; t.Errorf(f, a...) }
	for v := range tried {
		switch {
		case ran[v] > 1:
			fail("%s ran %d times", v, ran[v])
		case ran[v] == 1 && executed[v] != 1:
			fail("%s ran once under %d EXECUTED approvals, want one", v, executed[v])
		case ran[v] == 0 && executed[v] != 0:
			fail("%s did not run, yet %d approval(s) read EXECUTED", v, executed[v])
		case ranOK[v] && ran[v] != 1:
			fail("%s was answered as run but the upstream has %d", v, ran[v])
		}
	}
	for v, n := range ran {
		if !tried[v] {
			fail("%s ran %d times and no agent sent it", v, n)
		}
	}
	for _, v := range processing {
		fail("an approval of %s is PROCESSING after its lease", v)
	}
	if heldRan.Load() == 0 {
		t.Fatal("no held write ran: the soak did not happen")
	}
	if d := end.goroutines - start.goroutines; d > 10 {
		t.Errorf("the Sidecar has %v goroutines after the agents left, %v before they came (+%v)", end.goroutines, start.goroutines, d)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "soak: %s, %d connections (%d per protocol: postgres, mysql, http), Control Plane restarted %d times\n",
		duration, 3*perProtocol, perProtocol, restarts)
	fmt.Fprintf(&b, "  statements run: %d (%.0f/s); held writes run: %d, given up: %d; approvals given: %d; violations: %d\n",
		statements.Load(), float64(statements.Load())/duration.Seconds(), heldRan.Load(), heldGaveUp.Load(), approved, violations)
	fmt.Fprintf(&b, "  %-8s %10s %11s\n", "time", "RSS MiB", "goroutines")
	fmt.Fprintf(&b, "  %-8s %10.0f %11.0f\n", "start", start.rss/(1<<20), start.goroutines)
	for _, s := range samples {
		fmt.Fprintf(&b, "  %-8s %10.0f %11.0f\n", s.at, s.rss/(1<<20), s.goroutines)
	}
	fmt.Fprintf(&b, "  %-8s %10.0f %11.0f\n", "end", end.rss/(1<<20), end.goroutines)
	t.Log("\n" + b.String())
}

var valueRE = regexp.MustCompile(`s(pg|my|http)-\d+-\d+`)

// approvalsByValue reads the Control Plane's store: how many EXECUTED
// approvals each write has, and the writes with a PROCESSING one.
func approvalsByValue(t *testing.T, path string) (map[string]int, []string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT statement, status, lease_until FROM hoop_approvals`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	executed := map[string]int{}
	var processing []string
	now := time.Now().Unix()
	for rows.Next() {
		var stmt, status string
		var lease sql.NullInt64
		if err := rows.Scan(&stmt, &status, &lease); err != nil {
			t.Fatal(err)
		}
		v := valueRE.FindString(stmt)
		if status == "PROCESSING" && lease.Valid && lease.Int64 <= now {
			status = "EXECUTED" // lapsed: reads EXECUTED (the sweep may not have written it yet)
		}
		switch status {
		case "EXECUTED":
			executed[v]++
		case "PROCESSING":
			processing = append(processing, v)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return executed, processing
}
