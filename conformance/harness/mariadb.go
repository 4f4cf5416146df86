package harness

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"testing"
)

// MariaDB is the MariaDB (MySQL protocol) server kind of PickUpstream
// (docs/container.md, "Tests"): HOOP_TEST_MYSQL_URL
// (mysql://user:password@host:port); else a container of
// HOOP_TEST_MARIADB_IMAGE or hoop-test/mariadb:10.11 (built here by
// scripts/test-images.sh; the official mariadb and mysql images take the
// same settings); else this machine's server (127.0.0.1:3306, root without
// a password). It pings with the real mariadb client.
var MariaDB = UpstreamKind{
	Name:     "MariaDB",
	URLEnv:   "HOOP_TEST_MYSQL_URL",
	ImageEnv: "HOOP_TEST_MARIADB_IMAGE",
	Image:    "hoop-test/mariadb:10.11",
	Port:     "3306/tcp",
	Env: map[string]string{
		"MARIADB_ALLOW_EMPTY_ROOT_PASSWORD": "1", "MARIADB_DATABASE": "test",
		"MYSQL_ALLOW_EMPTY_PASSWORD": "yes", "MYSQL_DATABASE": "test",
	},
	URL:   func(hostport string) string { return "mysql://root@" + hostport },
	Local: "mysql://root@127.0.0.1:3306",
	Ping: func(ctx context.Context, u string) error {
		_, err := MariaDBQuery(ctx, u, "SELECT 1")
		return err
	},
}

// MariaDBURL returns the URL (mysql://user[:password]@host:port) of the
// MariaDB server the suites use, picked by PickUpstream.
func MariaDBURL(t testing.TB) string {
	t.Helper()
	return PickUpstream(t, MariaDB).URL
}

// MariaDBContainerURL is ContainerURL for MariaDB: the URL of a MariaDB
// container for this test process, or "".
func MariaDBContainerURL(t testing.TB) string { return ContainerURL(t, MariaDB) }

// MariaDBQuery runs one query with the real mariadb client (batch mode, no
// column names) against the server at u (mysql://user[:password]@host:port)
// and returns what it printed.
func MariaDBQuery(ctx context.Context, u, query string) (string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	args := []string{"--protocol=tcp", "-h", p.Hostname(), "-P", p.Port(), "-u", p.User.Username(), "-N", "-B", "--connect-timeout=5", "-e", query}
	if pw, ok := p.User.Password(); ok {
		args = append(args, "-p"+pw)
	}
	out, err := exec.CommandContext(ctx, "mariadb", args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("mariadb %s: %v: %s", p.Host, err, out)
	}
	return string(out), nil
}
