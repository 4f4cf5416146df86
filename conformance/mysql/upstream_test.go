package mysqlconf

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// upstream is the MySQL or MariaDB server the suite runs against.
type upstream struct {
	addr, user, password string
	source               string // which of the ways below it came from
}

// containerMySQL is the hook for a testcontainers-go container: it returns
// the server's URL, or "" when no Docker engine answers or the image is
// absent. TestMain sets it to harness.MariaDBContainerURL
// (hoop-test/mariadb:10.11, or HOOP_TEST_MARIADB_IMAGE, e.g. mysql:8.0 with
// a registry; docs/container.md, "Tests").
var containerMySQL func(t testing.TB) string

// pickUpstream returns the upstream, in this order: HOOP_TEST_MYSQL_URL
// (mysql://user:password@host:port); a testcontainers-go container (containerMySQL);
// the local MariaDB (127.0.0.1:3306, root without password). It logs which
// one it uses and fails naming these ways when none answers.
func pickUpstream(t testing.TB) upstream {
	t.Helper()
	var tries []string
	if raw := os.Getenv("HOOP_TEST_MYSQL_URL"); raw != "" {
		if u, err := parseUpstream(raw, "HOOP_TEST_MYSQL_URL"); err == nil && ping(u) == nil {
			return picked(t, u)
		}
		tries = append(tries, "HOOP_TEST_MYSQL_URL="+raw+" does not answer")
	}
	if containerMySQL != nil {
		if raw := containerMySQL(t); raw != "" {
			if u, err := parseUpstream(raw, "a testcontainers-go container"); err == nil && ping(u) == nil {
				return picked(t, u)
			}
		}
		tries = append(tries, "no MySQL/MariaDB container")
	}
	local := upstream{addr: "127.0.0.1:3306", user: "root", source: "the local MariaDB (127.0.0.1:3306, root)"}
	if err := ping(local); err == nil {
		return picked(t, local)
	} else {
		tries = append(tries, "127.0.0.1:3306: "+err.Error())
	}
	t.Fatalf("no MySQL/MariaDB upstream for the conformance suite (%v). Set HOOP_TEST_MYSQL_URL=mysql://user:password@host:port, run a Docker engine with the image hoop-test/mariadb:10.11 (scripts/test-images.sh) or HOOP_TEST_MARIADB_IMAGE, or start MariaDB on 127.0.0.1:3306 with root and no password", tries)
	return upstream{}
}

func picked(t testing.TB, u upstream) upstream {
	t.Logf("MySQL upstream: %s at %s", u.source, u.addr)
	return u
}

func parseUpstream(raw, source string) (upstream, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return upstream{}, err
	}
	pw, _ := u.User.Password()
	return upstream{addr: u.Host, user: u.User.Username(), password: pw, source: source}, nil
}

func ping(u upstream) error {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = u.user, u.password, "tcp", u.addr
	cfg.Timeout = 5 * time.Second
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}
