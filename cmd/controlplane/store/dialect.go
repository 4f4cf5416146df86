package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// Times are stored as Unix seconds (UTC); seq orders requests filed in the
// same second; sidecar_reads counts the Sidecar's GETs of one request.
const tableBody = `
	id               TEXT NOT NULL UNIQUE,
	sidecar          TEXT NOT NULL,
	status           TEXT NOT NULL,
	listener_name    TEXT NOT NULL,
	approval_rule    TEXT NOT NULL,
	protocol         TEXT NOT NULL DEFAULT '',
	fingerprint      TEXT NOT NULL,
	statement        TEXT NOT NULL DEFAULT '',
	client_identity  TEXT NOT NULL DEFAULT '',
	created_at       BIGINT NOT NULL,
	decided_at       BIGINT,
	expires_at       BIGINT,
	rejection_reason TEXT NOT NULL DEFAULT '',
	decided_by       TEXT NOT NULL DEFAULT '',
	sidecar_reads    BIGINT NOT NULL DEFAULT 0,
	reopened_from    TEXT NOT NULL DEFAULT '',
	reopened_as      TEXT NOT NULL DEFAULT '',
	reopened_by      TEXT NOT NULL DEFAULT '',
	claim_key        TEXT NOT NULL DEFAULT '',
	given_back_keys  TEXT NOT NULL DEFAULT '',
	lease_until      BIGINT,
	settled_by       TEXT NOT NULL DEFAULT '',
	approvals        TEXT NOT NULL DEFAULT ''
)`

// addedColumns are the columns added after the first release of the table
// (reopen, claim keys and the keys given back, the PROCESSING lease, the approvals of a quorum), with their declarations: Open adds each to a table that lacks it,
// so a store file or database of an older Control Plane keeps working.
var addedColumns = [][2]string{
	{"reopened_from", "TEXT NOT NULL DEFAULT ''"},
	{"reopened_as", "TEXT NOT NULL DEFAULT ''"},
	{"reopened_by", "TEXT NOT NULL DEFAULT ''"},
	{"claim_key", "TEXT NOT NULL DEFAULT ''"},
	{"given_back_keys", "TEXT NOT NULL DEFAULT ''"},
	{"lease_until", "BIGINT"},
	{"settled_by", "TEXT NOT NULL DEFAULT ''"},
	{"approvals", "TEXT NOT NULL DEFAULT ''"},
}

var indexes = []string{
	`CREATE INDEX IF NOT EXISTS hoop_approvals_fingerprint ON hoop_approvals (sidecar, fingerprint, seq)`,
	`CREATE INDEX IF NOT EXISTS hoop_approvals_created ON hoop_approvals (created_at, seq)`,
}

var sqliteDialect = dialect{
	name:   "sqlite",
	rebind: func(q string) string { return q },
	find:   "instr",
	tail:   "substr(%s, -%d)",
	schema: append([]string{`CREATE TABLE IF NOT EXISTS hoop_approvals (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,` + tableBody, `CREATE TABLE IF NOT EXISTS hoop_outbox (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,` + outboxTable, outboxIndex}, indexes...),
	// Every SQLite transaction here is BEGIN IMMEDIATE (see Open): it holds
	// the database's write lock, so File needs no lock of its own.
	addColumn: func(ctx context.Context, tx *sql.Tx, name, decl string) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('hoop_approvals') WHERE name = ?`,
			name).Scan(&n); err != nil || n > 0 {
			return err
		}
		_, err := tx.ExecContext(ctx, `ALTER TABLE hoop_approvals ADD COLUMN `+name+` `+decl)
		return err
	},
}

// schemaLockKey is the advisory lock that serialises schema creation when
// several replicas start at once ("hoopcp" in ASCII).
const schemaLockKey = 0x686f6f706370

var postgresDialect = dialect{
	name:   "postgres",
	rebind: dollarPlaceholders,
	find:   "strpos",
	tail:   "right(%s, %d)",
	schema: append([]string{`CREATE TABLE IF NOT EXISTS hoop_approvals (
	seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,` + tableBody, `CREATE TABLE IF NOT EXISTS hoop_outbox (
	seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,` + outboxTable, outboxIndex}, indexes...),
	skipLocked: " FOR UPDATE SKIP LOCKED",
	lockSchema: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLockKey))
		return err
	},
	// Looked up first, so a replica that starts beside running ones takes
	// no ACCESS EXCLUSIVE lock on a table that is already up to date.
	addColumn: func(ctx context.Context, tx *sql.Tx, name, decl string) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'hoop_approvals' AND column_name = $1`,
			name).Scan(&n); err != nil || n > 0 {
			return err
		}
		_, err := tx.ExecContext(ctx, `ALTER TABLE hoop_approvals ADD COLUMN IF NOT EXISTS `+name+` `+decl)
		return err
	},
	// A transaction-scoped advisory lock per (sidecar, fingerprint): two
	// replicas filing the same statement at once take turns, and the second
	// sees (and reuses) the first one's request.
	lockFingerprint: func(ctx context.Context, tx *sql.Tx, sidecar, fingerprint string) error {
		_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
			sidecar+"\x1f"+fingerprint)
		return err
	},
}

// dollarPlaceholders rewrites '?' into $1, $2, … (the queries here hold no
// '?' inside literals).
func dollarPlaceholders(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
