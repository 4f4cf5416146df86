package postgres

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/internal/testcert"
)

// writeCert writes a self-signed certificate for 127.0.0.1 and localhost
// into dir and returns the certificate and key paths.
func writeCert(t testing.TB, dir string) (certFile, keyFile string) {
	t.Helper()
	return testcert.Write(t, dir, "localhost")
}

// cluster is a private PostgreSQL server started for a test, with password
// authentication and TLS, which the shared local server (trust) lacks.
type cluster struct {
	addr             string
	certFile, socket string
}

// Roles of the private cluster; each one's password is "pw-" + its name.
const (
	md5User   = "md5user"   // md5
	scramUser = "scramuser" // SCRAM-SHA-256
	tlsUser   = "tlsuser"   // SCRAM-SHA-256, and only over TLS (hostssl)
)

// startCluster runs initdb and pg_ctl as the postgres system user. It needs
// the PostgreSQL server binaries (Debian's postgresql package) and root.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	bin := os.Getenv("HOOP_TEST_PG_BIN")
	if bin == "" {
		bin = "/usr/lib/postgresql/15/bin"
	}
	pgUser, err := user.Lookup("postgres")
	if err != nil || os.Geteuid() != 0 {
		t.Fatalf("a private PostgreSQL cluster needs root and a postgres system user (have euid %d, lookup error %v)", os.Geteuid(), err)
	}
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		t.Fatalf("initdb not found in %s (set HOOP_TEST_PG_BIN): %v", bin, err)
	}
	dir, err := os.MkdirTemp("", "hoop-pgcluster-")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(pgUser.Uid)
	gid, _ := strconv.Atoi(pgUser.Gid)
	c := &cluster{socket: dir}
	certFile, keyFile := writeCert(t, dir)
	c.certFile = certFile
	for _, p := range []string{dir, certFile, keyFile} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "--no-sync")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c.addr = fmt.Sprintf("127.0.0.1:%d", port)
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nssl = on\nssl_cert_file = '%s'\nssl_key_file = '%s'\nfsync = off\nshared_buffers = 16MB\nmax_connections = 20\n",
		port, dir, certFile, keyFile)
	hba := fmt.Sprintf("local all all trust\nhost all %s 127.0.0.1/32 md5\nhost all %s 127.0.0.1/32 scram-sha-256\nhostssl all %s 127.0.0.1/32 scram-sha-256\nhost all postgres 127.0.0.1/32 trust\n",
		md5User, scramUser, tlsUser)
	if err := os.WriteFile(filepath.Join(data, "postgresql.auto.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"postgresql.auto.conf", "pg_hba.conf"} {
		os.Chown(filepath.Join(data, f), uid, gid)
	}
	run(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "30", "start")
	t.Cleanup(func() {
		exec.Command("runuser", "-u", "postgres", "--", filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop").Run()
		os.RemoveAll(dir)
	})
	sql := fmt.Sprintf("SET password_encryption = 'md5'; CREATE ROLE %s LOGIN PASSWORD 'pw-%s'; "+
		"SET password_encryption = 'scram-sha-256'; CREATE ROLE %s LOGIN PASSWORD 'pw-%s'; CREATE ROLE %s LOGIN PASSWORD 'pw-%s';",
		md5User, md5User, scramUser, scramUser, tlsUser, tlsUser)
	run("psql", "-X", "-q", "-h", dir, "-p", strconv.Itoa(port), "-U", "postgres", "-d", "postgres", "-c", sql)
	return c
}
