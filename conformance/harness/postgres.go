package harness

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// Postgres is the PostgreSQL server kind of PickUpstream (docs/container.md,
// "Tests"): HOOP_TEST_POSTGRES_URL; else a container of
// HOOP_TEST_POSTGRES_IMAGE or hoop-test/postgres:15 (built here by
// scripts/test-images.sh; the official postgres image takes the same
// settings); else this machine's server (127.0.0.1:5432, trust).
var Postgres = UpstreamKind{
	Name:     "PostgreSQL",
	URLEnv:   "HOOP_TEST_POSTGRES_URL",
	ImageEnv: "HOOP_TEST_POSTGRES_IMAGE",
	Image:    "hoop-test/postgres:15",
	Port:     "5432/tcp",
	Env:      map[string]string{"POSTGRES_HOST_AUTH_METHOD": "trust"},
	URL: func(hostport string) string {
		return "postgres://postgres@" + hostport + "/postgres?sslmode=disable"
	},
	Local: "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable",
	Ping: func(ctx context.Context, u string) error {
		db, err := sql.Open("pgx", u)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	},
}

// PostgresURL returns the admin URL of the PostgreSQL server the suites use,
// picked by PickUpstream (Postgres says the order); it logs which one and
// fails naming the ways to get one when none answers.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return PickUpstream(t, Postgres).URL
}

// FreshDatabase creates a database with a random name on the PostgresURL
// server, drops it when the test ends, and returns its URL.
func FreshDatabase(t testing.TB) string {
	t.Helper()
	admin := PostgresURL(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "hoop_test_" + hex.EncodeToString(b)
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		_, _ = db.Exec(fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
		db.Close()
	})
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	return u.String()
}

// CountValues runs query (one text column) on the PostgreSQL database at u
// and returns how many times each value appears: a test's read of what the
// upstream ran.
func CountValues(t testing.TB, u, query string) map[string]int {
	t.Helper()
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return CountValuesIn(t, db, query)
}

// CountValuesIn is CountValues on an open database handle of any driver.
func CountValuesIn(t testing.TB, db *sql.DB, query string) map[string]int {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	n := map[string]int{}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		n[v]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}
