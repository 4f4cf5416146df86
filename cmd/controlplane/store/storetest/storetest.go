// Package storetest opens fresh stores for tests: a SQLite file in a temp
// dir, or a new PostgreSQL database with a random name that is dropped when
// the test ends. PostgreSQL is not optional: when it cannot be reached the
// test fails and says how to point at one (HOOP_TEST_POSTGRES_URL).
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for the admin connection

	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// Kinds are the two store kinds every store test runs against.
var Kinds = []string{"sqlite", "postgres"}

// DefaultPostgresURL is used when HOOP_TEST_POSTGRES_URL is unset.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Addr returns the address of a fresh, empty store of kind ("sqlite" or
// "postgres") that is removed when t ends. Open it as many times as needed
// (several Opens of one address act as several replicas).
func Addr(t testing.TB, kind string) string {
	t.Helper()
	switch kind {
	case "sqlite":
		return "sqlite:" + filepath.Join(t.TempDir(), "cp.db")
	case "postgres":
		return PostgresDB(t)
	}
	t.Fatalf("storetest: unknown store kind %q", kind)
	return ""
}

// Open opens a fresh store of kind, closed when t ends.
func Open(t testing.TB, kind string, opts ...store.Option) store.Store {
	t.Helper()
	return OpenAddr(t, Addr(t, kind), opts...)
}

// OpenAddr opens the store at addr with opts, closed when t ends.
func OpenAddr(t testing.TB, addr string, opts ...store.Option) store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := store.Open(ctx, addr, opts...)
	if err != nil {
		t.Fatalf("storetest: open %s: %v", addr, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// PostgresDB creates a database with a random name on the server named by
// HOOP_TEST_POSTGRES_URL (default DefaultPostgresURL), returns its URL, and
// drops it when t ends.
func PostgresDB(t testing.TB) string {
	t.Helper()
	admin := os.Getenv("HOOP_TEST_POSTGRES_URL")
	if admin == "" {
		admin = DefaultPostgresURL
	}
	how := "; these tests need PostgreSQL: start one or set HOOP_TEST_POSTGRES_URL " +
		"(default " + DefaultPostgresURL + ") to a server where the user may CREATE DATABASE"
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("storetest: HOOP_TEST_POSTGRES_URL is not a URL: %v%s", err, how)
	}
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatalf("storetest: %v%s", err, how)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		t.Fatalf("storetest: PostgreSQL at %s is not reachable: %v%s", u.Redacted(), err, how)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "hoop_cp_test_" + hex.EncodeToString(b[:])
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		db.Close()
		t.Fatalf("storetest: create database %s: %v%s", name, err, how)
	}
	t.Cleanup(func() {
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("storetest: drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}
