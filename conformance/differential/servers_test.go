package differential

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgxpool"
)

// startupBound is how long a private server may take to answer its first
// connection; only a server that will never start takes this long.
const startupBound = 90 * time.Second

// privateDir makes a temporary folder that the server's own OS user (mysql,
// postgres) owns, removed when t ends.
func privateDir(t *testing.T, owner string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "differential-"+owner+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	u, err := user.Lookup(owner)
	if err != nil {
		t.Fatalf("the private server runs as the OS user %s: %v (scripts/deps.sh installs its package)", owner, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatalf("chown %s to %s: %v (the test runs as root to start a private server)", dir, owner, err)
	}
	return dir
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// server is a private server process that t's cleanup stops (SIGTERM, then
// SIGKILL after 30 s) before its folder is removed.
type server struct {
	cmd  *exec.Cmd
	log  *bytes.Buffer
	done chan struct{}
}

func startProcess(t *testing.T, cmd *exec.Cmd) *server {
	t.Helper()
	s := &server{cmd: cmd, log: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	go func() { cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-s.done
		}
		if t.Failed() {
			t.Logf("%s's last words:\n%s", filepath.Base(cmd.Args[len(cmd.Args)-1]), lastLines(s.log.String(), 30))
		}
	})
	return s
}

// waitUp calls try until it succeeds, the process ends or startupBound
// passes.
func (s *server) waitUp(t *testing.T, what string, try func() error) {
	t.Helper()
	deadline := time.Now().Add(startupBound)
	for {
		err := try()
		if err == nil {
			return
		}
		select {
		case <-s.done:
			t.Fatalf("%s ended before it answered: %v\n%s", what, err, s.log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer in %s: %v\n%s", what, startupBound, err, s.log.String())
		}
		time.Sleep(50 * time.Millisecond) // polling a process that is starting: the bound above ends a hang
	}
}

// mariadb is a private MariaDB with the statement record on: admin is root
// over the server's socket, addr its TCP address for the listener.
type mariadb struct {
	addr  string
	admin *sql.DB
}

// startMariaDB installs a fresh data folder (mariadb-install-db) and runs
// mariadbd on it as the OS user mysql, with performance_schema's statement
// history (events_statements_history_long, histSize rows) on.
func startMariaDB(t *testing.T, histSize int) *mariadb {
	t.Helper()
	for _, b := range []string{"mariadb-install-db", "mariadbd"} {
		if _, err := exec.LookPath(b); err != nil {
			if _, err := os.Stat("/usr/sbin/" + b); err != nil {
				t.Fatalf("%s not found: scripts/deps.sh installs Debian's mariadb-server", b)
			}
		}
	}
	dir := privateDir(t, "mysql")
	data := filepath.Join(dir, "data")
	install := exec.Command("mariadb-install-db", "--no-defaults", "--user=mysql", "--datadir="+data,
		"--auth-root-authentication-method=normal", "--skip-test-db")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	port := freePort(t)
	sock := filepath.Join(dir, "mysqld.sock")
	bin, err := exec.LookPath("mariadbd")
	if err != nil {
		bin = "/usr/sbin/mariadbd"
	}
	s := startProcess(t, exec.Command(bin, "--no-defaults", "--user=mysql", "--datadir="+data,
		"--socket="+sock, "--port="+strconv.Itoa(port), "--bind-address=127.0.0.1", "--skip-name-resolve",
		"--pid-file="+filepath.Join(dir, "mysqld.pid"), "--log-error="+filepath.Join(dir, "error.log"),
		"--skip-log-bin", "--innodb-buffer-pool-size=32M", "--max-connections=100",
		"--performance-schema=ON",
		"--performance-schema-consumer-events-statements-current=ON",
		"--performance-schema-consumer-events-statements-history-long=ON",
		"--performance-schema-events-statements-history-long-size="+strconv.Itoa(histSize)))
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.MultiStatements = "root", "unix", sock, true
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	admin := sql.OpenDB(c)
	t.Cleanup(func() { admin.Close() })
	s.waitUp(t, "mariadbd", func() error {
		if err := admin.Ping(); err != nil {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return fmt.Errorf("%v (error log: %s)", err, lastLines(string(b), 5))
		}
		return nil
	})
	var size int
	if err := admin.QueryRow("SELECT @@performance_schema_events_statements_history_long_size").Scan(&size); err != nil || size != histSize {
		t.Fatalf("statement history size %d (%v), want %d", size, err, histSize)
	}
	// Only the agents' statements are recorded (setup_actors lists them
	// by name, workers add theirs), so the harness's own do not crowd the
	// history.
	if _, err := admin.Exec("DELETE FROM performance_schema.setup_actors"); err != nil {
		t.Fatal(err)
	}
	return &mariadb{addr: "127.0.0.1:" + strconv.Itoa(port), admin: admin}
}

// postgres is a private PostgreSQL with pg_stat_statements loaded
// (track=all: nested statements too): admin is the superuser postgres on
// the database postgres, addr the TCP address for the listener.
type postgres struct {
	addr  string
	admin *pgxpool.Pool
}

// startPostgres runs Debian's initdb and postgres (from pg_config
// --bindir) as the OS user postgres on a temporary folder.
func startPostgres(t *testing.T) *postgres {
	t.Helper()
	out, err := exec.Command("pg_config", "--bindir").Output()
	if err != nil {
		t.Fatalf("pg_config --bindir: %v (scripts/deps.sh installs Debian's postgresql)", err)
	}
	bindir := strings.TrimSpace(string(out))
	dir := privateDir(t, "postgres")
	data := filepath.Join(dir, "data")
	initdb := exec.Command("runuser", "-u", "postgres", "--", filepath.Join(bindir, "initdb"),
		"-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := freePort(t)
	s := startProcess(t, exec.Command("runuser", "-u", "postgres", "--", filepath.Join(bindir, "postgres"),
		"-D", data, "-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
		"-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track=all",
		"-c", "pg_stat_statements.max=10000", "-c", "fsync=off", "-c", "max_connections=60",
		"-c", "shared_buffers=32MB"))
	// runuser forwards SIGTERM to postgres (a smart shutdown); its children
	// end with it.
	addr := "127.0.0.1:" + strconv.Itoa(port)
	admin, err := pgxpool.New(context.Background(), "postgres://postgres@"+addr+"/postgres?sslmode=disable&pool_max_conns=4")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	s.waitUp(t, "postgres", func() error { return admin.Ping(context.Background()) })
	if _, err := admin.Exec(context.Background(), "CREATE EXTENSION pg_stat_statements"); err != nil {
		t.Fatal(err)
	}
	return &postgres{addr: addr, admin: admin}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
