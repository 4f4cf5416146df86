package soak

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/hoophq/sidecar/conformance/harness"
)

// agent is one connection of one protocol through the Sidecar.
type agent struct {
	read  func() error
	write func(v string) error // one send of the held write for v
	close func()
}

// writeUntilRun sends the write for v until it runs, waiting 300 ms after
// each denial (held, unavailable, in use) as an agent told to resend does;
// false when it still did not run after limit.
func (a *agent) writeUntilRun(v string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if a.write(v) == nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func newAgent(proto string, i int, pgListen, pgPath, myListen, myDB, httpListen string) (*agent, error) {
	switch proto {
	case "pg":
		u := fmt.Sprintf("postgres://postgres@%s%s?sslmode=disable&application_name=soak-%d", pgListen, pgPath, i)
		c, err := pgx.Connect(context.Background(), u)
		if err != nil {
			return nil, err
		}
		a := &agent{close: func() { c.Close(context.Background()) }}
		a.read = func() error { _, err := c.Exec(context.Background(), "SELECT 1"); return err }
		a.write = func(v string) error {
			_, err := c.Exec(context.Background(), "INSERT INTO soak VALUES ('"+v+"')")
			if err != nil && c.IsClosed() { // a lost connection: the agent reconnects
				if nc, cerr := pgx.Connect(context.Background(), u); cerr == nil {
					c = nc
				}
			}
			return err
		}
		return a, nil
	case "my":
		cfg := mysql.NewConfig()
		cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", myListen, myDB
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		if err := db.Ping(); err != nil {
			db.Close()
			return nil, err
		}
		return &agent{
			read:  func() error { _, err := db.Exec("SELECT 1"); return err },
			write: func(v string) error { _, err := db.Exec("INSERT INTO soak VALUES ('" + v + "')"); return err },
			close: func() { db.Close() },
		}, nil
	default:
		c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		do := func(method, path string) error {
			req, _ := http.NewRequest(method, "http://"+httpListen+path, nil)
			resp, err := c.Do(req)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				return fmt.Errorf("%s %s: %d", method, path, resp.StatusCode)
			}
			return nil
		}
		return &agent{
			read:  func() error { return do(http.MethodGet, "/items") },
			write: func(v string) error { return do(http.MethodDelete, "/items/"+v) },
			close: c.CloseIdleConnections,
		}, nil
	}
}

// mysqlDB is a fresh database on the suites' MariaDB with a table soak.
type mysqlDB struct {
	addr, db string
	admin    *sql.DB
}

func mysqlDatabase(t *testing.T) *mysqlDB {
	t.Helper()
	u, err := url.Parse(harness.MariaDBURL(t))
	if err != nil {
		t.Fatal(err)
	}
	if u.User.Username() != "root" {
		t.Fatalf("the soak's mysql agents log in as root; the upstream is %s", u.Redacted())
	}
	if _, has := u.User.Password(); has {
		t.Fatalf("the soak's mysql agents log in without a password; the upstream is %s", u.Redacted())
	}
	b := make([]byte, 5)
	rand.Read(b)
	m := &mysqlDB{addr: u.Host, db: "soak_" + hex.EncodeToString(b)}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", u.Host
	if m.admin, err = sql.Open("mysql", cfg.FormatDSN()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE DATABASE " + m.db, "CREATE TABLE " + m.db + ".soak (v varchar(64))"} {
		if _, err := m.admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		m.admin.Exec("DROP DATABASE IF EXISTS " + m.db)
		m.admin.Close()
	})
	return m
}

func (m *mysqlDB) values(t *testing.T) []string {
	t.Helper()
	rows, err := m.admin.Query("SELECT v FROM " + m.db + ".soak")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSpace(v))
	}
	return out
}
