package harness

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// PostgresURL returns the admin URL of the PostgreSQL server the suites use
// (docs/postgres-listener.md, "Tests"): HOOP_TEST_POSTGRES_URL from the
// environment; else the local server (127.0.0.1:5432, trust). It
// logs which one it used and fails with the ways to get one if none answers.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("HOOP_TEST_POSTGRES_URL")
	src := "HOOP_TEST_POSTGRES_URL"
	if u == "" {
		u, src = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "the local PostgreSQL server (127.0.0.1:5432)"
	}
	db, err := sql.Open("pgx", u)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = db.PingContext(ctx)
		db.Close()
	}
	if err != nil {
		t.Fatalf("no PostgreSQL for the conformance suite (%v). Set HOOP_TEST_POSTGRES_URL, run a Docker engine, or start the local server on 127.0.0.1:5432", err)
	}
	t.Logf("PostgreSQL upstream: %s", src)
	return u
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
