package faults

import (
	"context"
	"fmt"
	"net/http"
	"os"
	osexec "os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hoophq/sidecar/conformance/harness"
)

// storeRestarts is how many times TestStoreRestartedDuringClaims restarts
// the Control Planes' store.
const storeRestarts = 4

// The store restart: two Control Plane replicas share a private
// PostgreSQL cluster as their store (its own initdb in a temporary folder,
// on a free port; this machine's server at 127.0.0.1:5432, which other
// packages use meanwhile, is the upstream and is never restarted). Every
// fifth claim the Sidecars send starts a restart while it and the other
// agents' calls are in flight: alternately pg_ctl stop -m immediate (every
// backend killed, crash recovery at the start, as after a crash of the
// server) and -m fast, the store down for a second, then started again.
// The Control Planes' calls meanwhile fail (cut mid-transaction, refused)
// and the agents resend as the denials tell them; the checker holds: every
// statement ran once under exactly one EXECUTED approval, none is left
// PROCESSING.
func TestStoreRestartedDuringClaims(t *testing.T) {
	store := startStoreCluster(t)
	f := startFleet(t, store.url, 4*time.Second)
	var claims atomic.Int64
	trigger := make(chan struct{})
	for _, p := range f.proxies {
		p.setPick(func(r *http.Request) (fault, bool) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/claim") && claims.Add(1)%5 == 2 {
				select {
				case trigger <- struct{}{}: // a restart starts while this claim is forwarded
				default: // one is under way
				}
			}
			return "", false
		})
	}
	restarts := 0
	run := f.run(4, 3)
	run.name = "store-"
	run.during = func(stop <-chan struct{}) {
		for restarts < storeRestarts {
			select {
			case <-stop:
				return
			case <-trigger:
			}
			store.restart(t, []string{"immediate", "fast"}[restarts%2])
			restarts++
		}
	}
	v := run.check(t)
	failed := 0
	for _, p := range f.proxies {
		failed += p.failedCalls()
	}
	if restarts == 0 || failed == 0 {
		t.Fatalf("the store was restarted %d times and %d calls failed: the scenario did not happen", restarts, failed)
	}
	t.Logf("store restarted %d times during %d claims, %d Control Plane calls failed meanwhile; %s", restarts, claims.Load(), failed, v)
}

// storeCluster is a private PostgreSQL cluster (initdb, pg_ctl) for a
// Control Plane store.
type storeCluster struct {
	bin, dir, data string
	url            string
	asPostgres     bool // run its programs as the OS user postgres (this process is root)
}

// startStoreCluster runs initdb and pg_ctl start (Debian's, from pg_config
// --bindir) on a temporary folder and a free port; PostgreSQL refuses to
// run as root, so as root they run as the OS user postgres (runuser).
func startStoreCluster(t *testing.T) *storeCluster {
	t.Helper()
	out, err := osexec.Command("pg_config", "--bindir").Output()
	if err != nil {
		t.Fatalf("pg_config --bindir: %v (scripts/deps.sh installs Debian's postgresql)", err)
	}
	c := &storeCluster{bin: strings.TrimSpace(string(out)), asPostgres: os.Geteuid() == 0}
	if c.dir, err = os.MkdirTemp("", "hoop-faults-store-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(c.dir) })
	if c.asPostgres {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("a private PostgreSQL cluster run as root needs the OS user postgres: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(c.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	c.data = filepath.Join(c.dir, "data")
	if out, err := c.cmd("initdb", "-D", c.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	addr := harness.FreeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	conf := fmt.Sprintf("port = %s\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nfsync = off\nshared_buffers = 16MB\nmax_connections = 100\n", port, c.dir)
	// postgresql.auto.conf is the cluster user's and stays so (appended to).
	af, err := os.OpenFile(filepath.Join(c.data, "postgresql.auto.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = af.WriteString(conf)
		if cerr := af.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatalf("postgresql.auto.conf: %v", err)
	}
	c.url = "postgres://postgres@" + addr + "/postgres?sslmode=disable"
	c.start(t)
	t.Cleanup(func() { _ = c.cmd("pg_ctl", "-D", c.data, "-m", "immediate", "-w", "stop").Run() })
	return c
}

// cmd is program, from the cluster's bindir, as the cluster's user.
func (c *storeCluster) cmd(program string, args ...string) *osexec.Cmd {
	program = filepath.Join(c.bin, program)
	if c.asPostgres {
		return osexec.Command("runuser", append([]string{"-u", "postgres", "--", program}, args...)...)
	}
	return osexec.Command(program, args...)
}

func (c *storeCluster) start(t *testing.T) {
	t.Helper()
	if out, err := c.cmd("pg_ctl", "-D", c.data, "-l", filepath.Join(c.dir, "log"), "-w", "-t", "30", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, c.url)
		if err == nil {
			conn.Close(ctx)
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the store cluster does not answer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// restart stops the cluster with pg_ctl stop -m mode (immediate: every
// server process killed, recovery at the next start; fast: sessions ended,
// a clean shutdown), keeps it down for a second and starts it again.
func (c *storeCluster) restart(t *testing.T, mode string) {
	t.Helper()
	if out, err := c.cmd("pg_ctl", "-D", c.data, "-m", mode, "-w", "stop").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl stop -m %s: %v\n%s", mode, err, out)
	}
	time.Sleep(time.Second) // the store is down: the calls in flight and the next ones fail
	c.start(t)
}
