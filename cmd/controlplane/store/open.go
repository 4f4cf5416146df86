package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // registers the "sqlite" database/sql driver (pure Go)
)

// Open opens (and creates the table in) the store at addr:
//
//	sqlite:PATH                       a SQLite file (created, with its folder, if missing); one replica
//	postgres://user@host:5432/db?…    PostgreSQL (also postgresql://); any number of replicas
//
// Errors name the store without its password.
func Open(ctx context.Context, addr string, opts ...Option) (Store, error) {
	var s *sqlStore
	switch {
	case strings.HasPrefix(addr, "sqlite:"):
		path := strings.TrimPrefix(addr, "sqlite:")
		if path == "" || strings.Contains(path, "?") {
			return nil, fmt.Errorf("store: bad sqlite path %q", path)
		}
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("store: sqlite %s: %w", path, err)
			}
		}
		// WAL lets readers run beside the writer; busy_timeout makes a
		// writer wait for the lock instead of failing; _txlock=immediate
		// makes every transaction BEGIN IMMEDIATE, so File's
		// read-then-insert holds the write lock from its first read.
		db, err := sql.Open("sqlite", "file:"+path+
			"?_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate")
		if err != nil {
			return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
		}
		db.SetMaxOpenConns(8)
		s = &sqlStore{db: db, d: sqliteDialect}
	case strings.HasPrefix(addr, "postgres://"), strings.HasPrefix(addr, "postgresql://"):
		db, err := sql.Open("pgx", addr)
		if err != nil {
			return nil, fmt.Errorf("store: open %s: %w", redact(addr), err)
		}
		db.SetMaxOpenConns(20)
		s = &sqlStore{db: db, d: postgresDialect}
	default:
		return nil, fmt.Errorf("store: %q is neither sqlite:PATH nor a postgres:// URL", redact(addr))
	}
	s.lease = DefaultProcessingLease
	for _, o := range opts {
		o(s)
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("store: %s: %w", redact(addr), err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// Kind returns "sqlite" or "postgres" for a store opened by Open, "" else.
func Kind(s Store) string {
	if ss, ok := s.(*sqlStore); ok {
		return ss.d.name
	}
	return ""
}

func redact(addr string) string {
	u, err := url.Parse(addr)
	if err != nil {
		return "(unparsable store address)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
