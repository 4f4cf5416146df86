// Package store keeps the reference Control Plane's approval requests.
//
// Store is the interface the HTTP server uses; Open returns its SQLite
// implementation ("sqlite:PATH", pure Go via modernc.org/sqlite, no cgo) or
// its PostgreSQL one (a postgres:// URL, via pgx's database/sql driver), which
// several Control Plane replicas may share.
//
// Every rule that must hold across replicas lives in the database, never in a
// lock of one process (docs/control-plane-api.md):
//   - File (reuse rule, domain.Reusable) runs in one transaction that is
//     serialised per (sidecar, fingerprint): pg_advisory_xact_lock on
//     PostgreSQL, BEGIN IMMEDIATE on SQLite (WAL, busy_timeout).
//   - Claim and Settle are each one conditional UPDATE … RETURNING.
//   - Decide (approve, reject, revoke) follows domain.Transition and writes
//     with an UPDATE conditioned on the status it read.
//   - Approve (approve.go: an approval toward a policy's quorum) appends to
//     the approvals column with an UPDATE conditioned on the approvals read,
//     so concurrent approvals are all kept and APPROVED is set once.
//   - Reopen (reopen.go: a person asks again, domain.Reopenable) files a new
//     PENDING request for a REJECTED or REVOKED one in the same serialised
//     transaction as File, so it is filed once and the statement finds it.
//   - The outbox (outbox.go): File, Reopen, Decide and Approve write the
//     notification of what they changed (WithOutbox) in their own
//     transaction; ClaimDue is one conditional UPDATE with a lease (SKIP
//     LOCKED on PostgreSQL), so one replica holds each row at a time.
//
// Files: store.go (the interface, Record, errors), sql.go (the database/sql
// implementation), reopen.go (Reopen), outbox.go (the notifications), dialect.go (schema and what differs
// between SQLite and PostgreSQL; Open adds the columns newer than a store's
// table), open.go (Open), text.go (text PostgreSQL cannot store).
//
// The time limit is applied when reading: every method takes now and returns
// records whose status is the effective one (a PENDING or APPROVED request at
// or past expires_at reads EXPIRED, with DecidedAt = ExpiresAt); the List
// status filter matches that effective status.
package store
