package faults

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/conformance/harness"
)

// mariadbUpstream is the MariaDB server harness.MariaDBURL picks (this
// machine's at 127.0.0.1:3306, root without a password, unless a URL or a
// container is given); dbURL is mysql://user[:password]@host:port/db.
var mariadbUpstream = upstream{
	fresh: func(t *testing.T) string {
		u, err := url.Parse(harness.MariaDBURL(t))
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		name := "hoop_faults_" + hex.EncodeToString(b)
		admin := mysqlDB(t, u.String(), "")
		for _, q := range []string{"CREATE DATABASE " + name, "CREATE TABLE " + name + ".runs (v varchar(100))"} {
			if _, err := admin.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE IF EXISTS " + name) })
		u.Path = "/" + name
		return u.String()
	},
	sidecar: func(t *testing.T, cpURL, listen, host, dbURL, spend string) string {
		harness.StartSidecar(t, harness.SidecarOptions{Token: sidecarToken, Config: fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
log: {format: text, level: info}
approval_rules:
  - {name: inserts, match: {actions: [INSERT]}}
listeners:
  - {name: my, protocol: mysql, listen: %s, upstream: %s, mode: return, spend_approval_on: %s, approval_rules: [inserts]}
`, cpURL, listen, host, spend)})
		u, _ := url.Parse(dbURL)
		u.Host = listen
		return u.String()
	},
	ran: func(t *testing.T, dbURL string) map[string]int {
		u, _ := url.Parse(dbURL)
		return harness.CountValuesIn(t, mysqlDB(t, dbURL, u.Path[1:]), "SELECT v FROM runs")
	},
	host: func(dbURL string) string {
		u, _ := url.Parse(dbURL)
		return u.Host
	},
}

// mysqlConfig is the go-sql-driver config for the server at u
// (mysql://user[:password]@host:port[/db]), multi-statement texts allowed.
func mysqlConfig(u string) *mysql.Config {
	p, _ := url.Parse(u)
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = p.User.Username(), "tcp", p.Host
	cfg.Passwd, _ = p.User.Password()
	if len(p.Path) > 1 {
		cfg.DBName = p.Path[1:]
	}
	cfg.MultiStatements = true
	cfg.Timeout = 10 * time.Second
	return cfg
}

// mysqlDB is a database/sql handle on the server at u, on database db ("":
// none), closed at the end of the test.
func mysqlDB(t *testing.T, u, db string) *sql.DB {
	t.Helper()
	cfg := mysqlConfig(u)
	cfg.DBName = db
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := sql.OpenDB(c)
	t.Cleanup(func() { h.Close() })
	return h
}

// mariadbResultSQL is resultSQL for MariaDB: autocommit commits the INSERT
// by itself before the rows (the Sequence engine's seq_1_to_4000) are
// answered.
func mariadbResultSQL(v string) string {
	return fmt.Sprintf("INSERT INTO runs VALUES ('%s'); SELECT seq, REPEAT('x', 100) FROM seq_1_to_4000", v)
}

// sendPastResetMySQL is sendPastReset on a mysql listener (go-sql-driver,
// one connection per send, the text's result sets read to the end).
func sendPastResetMySQL(agentURL, q string, limit time.Duration) (int, error) {
	return resendPastReset(func() attempt {
		c, err := mysql.NewConnector(mysqlConfig(agentURL))
		if err != nil {
			return attempt{err: err}
		}
		db := sql.OpenDB(c)
		defer db.Close()
		db.SetMaxIdleConns(0)
		ctx := context.Background()
		conn, err := db.Conn(ctx)
		if err != nil {
			return attempt{err: err}
		}
		defer conn.Close()
		a := attempt{}
		rows, err := conn.QueryContext(ctx, q)
		if err == nil {
			for {
				for rows.Next() {
					a.rows++
				}
				if !rows.NextResultSet() {
					break
				}
			}
			err = rows.Err()
			rows.Close()
		}
		a.err = err
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			a.denial = me.Message
		}
		return a
	}, limit)
}

// TestUpstreamResetMidResult on MariaDB: the same reset proxy between each
// Sidecar's mysql listener and the server cuts each statement's first
// answer 200 KiB in (past the 32 KiB the listener holds before it writes
// to the client, so rows reach the agent); the same checks hold.
func TestMariaDBUpstreamResetMidResult(t *testing.T) {
	resetMidResult(t, "MariaDB", mariadbUpstream, 200<<10, "mreset-", mariadbResultSQL, sendPastResetMySQL)
}
