package peersuites

import (
	"database/sql"
	"net/url"
	"testing"

	"github.com/go-sql-driver/mysql"

	mylistener "github.com/hoophq/sidecar/adapters/inbound/mysql"
	"github.com/hoophq/sidecar/conformance/harness"
)

// goMySQLSuite is go-sql-driver/mysql's own suite (its root package: the
// one whose tests talk to a server, MYSQL_TEST_*).
var goMySQLSuite = suite{
	module: "github.com/go-sql-driver/mysql",
	pkgs:   []string{"."},
	skip:   map[string]string{}, // none left out: every test runs both ways
	env: func(addr, db string) []string {
		return []string{"MYSQL_TEST_USER=" + myUser, "MYSQL_TEST_PASS=" + myPass, "MYSQL_TEST_PROT=tcp",
			"MYSQL_TEST_ADDR=" + addr, "MYSQL_TEST_DBNAME=" + db}
	},
}

var myUser, myPass string

// goMySQLDatabase creates database db on the server at addr and drops it
// when t ends.
func goMySQLDatabase(t *testing.T, addr, db string) {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = myUser, myPass, "tcp", addr
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	admin := sql.OpenDB(c)
	if _, err := admin.Exec("CREATE DATABASE " + db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + db); admin.Close() })
}

// go-sql-driver/mysql's suite passes through a mysql listener as it passes
// directly.
func TestGoSQLDriverSuite(t *testing.T) {
	u, err := url.Parse(harness.MariaDBURL(t))
	if err != nil {
		t.Fatal(err)
	}
	myUser = u.User.Username()
	myPass, _ = u.User.Password()
	direct, via := dbName("mysql"), dbName("mysql")
	goMySQLDatabase(t, u.Host, direct)
	goMySQLDatabase(t, u.Host, via)
	addr := serveListener(t, "mysql", mylistener.New(quietLog(t)), u.Host)
	compare(t, goMySQLSuite, u.Host, direct, addr, via)
}
