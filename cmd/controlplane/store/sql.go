package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/hoophq/sidecar/domain"
)

// sqlStore is the Store over database/sql; d holds what differs between
// SQLite and PostgreSQL.
type sqlStore struct {
	db    *sql.DB
	d     dialect
	lease time.Duration // of a claim to PROCESSING (lease.go)
	hooks []string      // webhooks every change is announced to (outbox.go)
}

// dialect is what differs between the two databases.
type dialect struct {
	name string
	// rebind turns '?' placeholders into the driver's own.
	rebind func(string) string
	// schema is run once at Open, in one transaction.
	schema []string
	// lockSchema serialises schema creation across processes (may be nil).
	lockSchema func(ctx context.Context, tx *sql.Tx) error
	// lockFingerprint serialises File for one (sidecar, fingerprint) inside
	// tx across processes (nil when the transaction itself is exclusive).
	lockFingerprint func(ctx context.Context, tx *sql.Tx, sidecar, fingerprint string) error
	// find is the SQL function (haystack, needle) that returns the 1-based
	// position of needle, 0 when absent, comparing bytes (case-sensitive).
	find string
	// tail is the SQL expression format (text, n) of text's last n characters.
	tail string
	// addColumn adds column name (declared decl) to hoop_approvals inside
	// tx unless the table has it already.
	addColumn func(ctx context.Context, tx *sql.Tx, name, decl string) error
	// skipLocked ends the outbox claim's subquery: rows a concurrent claim
	// holds are skipped ("" when the transaction itself is exclusive).
	skipLocked string
}

const columns = `id, sidecar, status, listener_name, approval_rule, protocol, fingerprint, statement,
	client_identity, created_at, decided_at, expires_at, rejection_reason, decided_by, sidecar_reads,
	reopened_from, reopened_as, reopened_by, claim_key, lease_until, settled_by, approvals`

// notExpired is the SQL condition "the time limit has not lapsed at ?".
const notExpired = `(expires_at IS NULL OR expires_at > ?)`

type scanner interface{ Scan(dest ...any) error }

func scanRecord(s scanner) (Record, error) {
	var r Record
	var status string
	var created int64
	var decided, expires, lease sql.NullInt64
	err := s.Scan(&r.ID, &r.Sidecar, &status, &r.ListenerName, &r.ApprovalRule, &r.Protocol, &r.Fingerprint,
		&r.Statement, &r.ClientIdentity, &created, &decided, &expires, &r.RejectionReason, &r.DecidedBy, &r.SidecarReads,
		&r.ReopenedFrom, &r.ReopenedAs, &r.ReopenedBy, &r.ClaimKey, &lease, &r.SettledBy, &r.approvalsText)
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	if err != nil {
		return r, fmt.Errorf("store: %w", err)
	}
	r.Status = domain.ParseStatus(status)
	r.CreatedAt = time.Unix(created, 0).UTC()
	r.DecidedAt = unixPtr(decided)
	r.ExpiresAt = unixPtr(expires)
	r.LeaseUntil = unixPtr(lease)
	if r.Approvals, err = decodeVotes(r.approvalsText); err != nil {
		return r, fmt.Errorf("store: approvals of %s: %w", r.ID, err)
	}
	return r, nil
}

func unixPtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := time.Unix(v.Int64, 0).UTC()
	return &t
}

func sec(t time.Time) int64 { return t.Unix() }

func (s *sqlStore) q(query string) string { return s.d.rebind(query) }

func (s *sqlStore) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	if s.d.lockSchema != nil {
		if err := s.d.lockSchema(ctx, tx); err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
	}
	for _, stmt := range s.d.schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
	}
	for _, c := range addedColumns {
		if err := s.d.addColumn(ctx, tx, c[0], c[1]); err != nil {
			return fmt.Errorf("store: migrate: add column %s: %w", c[0], err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// File implements Store.
func (s *sqlStore) File(ctx context.Context, sidecar string, in FileInput, now time.Time) (Record, bool, error) {
	sidecar, in.Fingerprint, in.ListenerName, in.ApprovalRule = text(sidecar), text(in.Fingerprint), text(in.ListenerName), text(in.ApprovalRule)
	in.Statement, in.Protocol, in.ClientIdentity = text(in.Statement), text(in.Protocol), text(in.ClientIdentity)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Record{}, false, fmt.Errorf("store: file: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	if s.d.lockFingerprint != nil {
		if err := s.d.lockFingerprint(ctx, tx, sidecar, in.Fingerprint); err != nil {
			return Record{}, false, fmt.Errorf("store: file: lock: %w", err)
		}
	}
	prev, err := scanRecord(tx.QueryRowContext(ctx, s.q(`SELECT `+columns+` FROM hoop_approvals
		WHERE sidecar = ? AND fingerprint = ? ORDER BY seq DESC LIMIT 1`), sidecar, in.Fingerprint))
	switch {
	case err == nil:
		if eff := prev.Effective(now); domain.Reusable(eff.Status) {
			return eff, true, tx.Commit()
		}
	case !errors.Is(err, ErrNotFound):
		return Record{}, false, err
	}
	rec, err := s.insert(ctx, tx, sidecar, in, "", "", now)
	if err != nil {
		return Record{}, false, fmt.Errorf("store: file: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Record{}, false, fmt.Errorf("store: file: %w", err)
	}
	return rec.Effective(now), false, nil
}

// insert files a new PENDING request for sidecar inside tx at now;
// reopenedFrom and reopenedBy are set when a person's reopen files it.
func (s *sqlStore) insert(ctx context.Context, tx *sql.Tx, sidecar string, in FileInput, reopenedFrom, reopenedBy string, now time.Time) (Record, error) {
	created := now.UTC().Truncate(time.Second)
	rec := Record{
		Approval: domain.Approval{ID: uuid.NewString(), Status: domain.StatusPending,
			ListenerName: in.ListenerName, ApprovalRule: in.ApprovalRule, CreatedAt: created},
		Sidecar: sidecar, Fingerprint: in.Fingerprint, Statement: in.Statement,
		Protocol: in.Protocol, ClientIdentity: in.ClientIdentity,
		ReopenedFrom: reopenedFrom, ReopenedBy: reopenedBy,
	}
	var expires sql.NullInt64
	if in.TimeLimit > 0 {
		e := created.Add(in.TimeLimit.Truncate(time.Second))
		rec.ExpiresAt = &e
		expires = sql.NullInt64{Int64: sec(e), Valid: true}
	}
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO hoop_approvals
		(id, sidecar, status, listener_name, approval_rule, protocol, fingerprint, statement, client_identity, created_at, expires_at,
		 reopened_from, reopened_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		rec.ID, sidecar, string(rec.Status), in.ListenerName, in.ApprovalRule, in.Protocol, in.Fingerprint,
		in.Statement, in.ClientIdentity, sec(created), expires, reopenedFrom, reopenedBy)
	if err != nil {
		return rec, err
	}
	_, err = s.enqueue(ctx, tx, rec, EventRequested, s.hooks, now)
	return rec, err
}

// changeAndAnnounce runs update (an UPDATE … RETURNING columns) with args
// and, when it changed a row, queues the notification of the status it set,
// in one transaction. ErrNotFound when it changed none.
func (s *sqlStore) changeAndAnnounce(ctx context.Context, update string, args []any, now time.Time) (Record, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Record{}, fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	r, err := scanRecord(tx.QueryRowContext(ctx, s.q(update), args...))
	if err != nil {
		return r, err
	}
	if _, err := s.enqueue(ctx, tx, r.Effective(now), DecisionEvent(r.Status), s.hooks, now); err != nil {
		return Record{}, err
	}
	if err := tx.Commit(); err != nil {
		return Record{}, fmt.Errorf("store: %w", err)
	}
	return r, nil
}

// Read implements Store.
func (s *sqlStore) Read(ctx context.Context, sidecar, id string, now time.Time) (Record, error) {
	sidecar, id = text(sidecar), text(id)
	r, err := scanRecord(s.db.QueryRowContext(ctx, s.q(`UPDATE hoop_approvals SET sidecar_reads = sidecar_reads + 1
		WHERE id = ? AND sidecar = ? RETURNING `+columns), id, sidecar))
	return r.Effective(now), err
}

// Get implements Store.
func (s *sqlStore) Get(ctx context.Context, id string, now time.Time) (Record, error) {
	id = text(id)
	r, err := scanRecord(s.db.QueryRowContext(ctx, s.q(`SELECT `+columns+` FROM hoop_approvals WHERE id = ?`), id))
	return r.Effective(now), err
}

// getFor reads sidecar's request without counting a read.
func (s *sqlStore) getFor(ctx context.Context, sidecar, id string, now time.Time) (Record, error) {
	sidecar, id = text(sidecar), text(id)
	r, err := scanRecord(s.db.QueryRowContext(ctx, s.q(`SELECT `+columns+` FROM hoop_approvals
		WHERE id = ? AND sidecar = ?`), id, sidecar))
	return r.Effective(now), err
}

// List implements Store.
func (s *sqlStore) List(ctx context.Context, f Filter, now time.Time) ([]Record, error) {
	f.Sidecar, f.Status = text(f.Sidecar), domain.Status(text(string(f.Status)))
	where, args := "WHERE 1 = 1", []any{}
	if f.Sidecar != "" {
		where += " AND sidecar = ?"
		args = append(args, f.Sidecar)
	}
	n := sec(now)
	switch f.Status {
	case "":
	case domain.StatusExpired:
		where += ` AND (status = 'EXPIRED' OR (status IN ('PENDING', 'APPROVED') AND expires_at IS NOT NULL AND expires_at <= ?))`
		args = append(args, n)
	case domain.StatusPending, domain.StatusApproved:
		where += " AND status = ? AND " + notExpired
		args = append(args, string(f.Status), n)
	case domain.StatusProcessing:
		where += " AND status = 'PROCESSING' AND " + leaseHolds
		args = append(args, n)
	case domain.StatusExecuted:
		where += " AND (status = 'EXECUTED' OR (status = 'PROCESSING' AND NOT " + leaseHolds + "))"
		args = append(args, n)
	default:
		where += " AND status = ?"
		args = append(args, string(f.Status))
	}
	args = append(args, f.Limit)
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+columns+` FROM hoop_approvals `+where+`
		ORDER BY created_at DESC, seq DESC LIMIT ?`), args...)
	if err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	defer rows.Close()
	out := []Record{}
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r.Effective(now))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	return out, nil
}

// Claim implements Store: one conditional UPDATE, so of any number of
// concurrent claims (from any number of processes) exactly one wins. The
// winner's key is kept with the request, so the same attempt claiming again
// (its first answer was lost) is told it won, with the current state, while
// the time limit lasts. A key whose claim was given back never wins again:
// a late first try of a retried claim, arriving after its attempt gave the
// approval back, would otherwise take it to PROCESSING with nobody left to
// settle it.
func (s *sqlStore) Claim(ctx context.Context, sidecar, id, fingerprint, key string, to domain.Status, now time.Time) (Record, bool, error) {
	sidecar, id, fingerprint, key = text(sidecar), text(id), text(fingerprint), text(key)
	if to != domain.StatusExecuted && to != domain.StatusProcessing {
		return Record{}, false, fmt.Errorf("store: claim: target status %s is not EXECUTED or PROCESSING", to)
	}
	r, err := scanRecord(s.db.QueryRowContext(ctx, s.q(`UPDATE hoop_approvals SET status = ?, claim_key = ?, lease_until = ?
		WHERE id = ? AND sidecar = ? AND status = 'APPROVED' AND fingerprint = ? AND `+notExpired+`
		AND (? = '' OR `+s.d.find+`(given_back_keys, ?) = 0)
		RETURNING `+columns), string(to), key, s.leaseFrom(to, now), id, sidecar, fingerprint, sec(now), key, "\n"+key+"\n"))
	if err == nil {
		return r.Effective(now), true, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return Record{}, false, err
	}
	cur, err := s.getFor(ctx, sidecar, id, now)
	if err != nil {
		return Record{}, false, err
	}
	return cur, ClaimedBy(cur, key, fingerprint, to, now), nil
}

// ClaimedBy reports whether rec is the state a claim with this key,
// fingerprint and target status left (so a retry of that claim won): the key
// is not empty, it is the key the request was claimed with, the request is
// still in the status the claim moved it to, and its time limit (if any) has
// not lapsed at now (a statement whose claim answer was lost does not run
// after the approval's time limit).
func ClaimedBy(rec Record, key, fingerprint string, to domain.Status, now time.Time) bool {
	return key != "" && rec.ClaimKey == key && rec.Fingerprint == fingerprint && rec.Status == to &&
		(rec.ExpiresAt == nil || now.Before(*rec.ExpiresAt))
}

// maxGivenBackKeys bounds given_back_keys, in bytes: past it the oldest
// keys are dropped (about 140 give-backs of one approval are kept; a late
// try of a claim older than that is not expected).
const maxGivenBackKeys = 4096

// Settle implements Store with one conditional UPDATE, while the request's
// lease holds (lease.go). A key that is not empty must be the one the
// request was claimed with; a settle repeated with
// that key after it took effect answers the current state (idempotent). A
// give-back adds the key to the keys given back (Claim).
func (s *sqlStore) Settle(ctx context.Context, sidecar, id, key string, accepted bool, now time.Time) (Record, error) {
	sidecar, id, key = text(sidecar), text(id), text(key)
	to := domain.StatusApproved
	if accepted {
		to = domain.StatusExecuted
	}
	set, args := "status = ?, lease_until = NULL", []any{string(to)}
	if key != "" && !accepted {
		// The list is "\n" + each key + "\n" (a key is printable ASCII), a
		// sliding window of its last maxGivenBackKeys bytes.
		set += `, given_back_keys = CASE WHEN given_back_keys = '' THEN ?
			ELSE ` + fmt.Sprintf(s.d.tail, "given_back_keys || ?", maxGivenBackKeys) + ` END`
		args = append(args, "\n"+key+"\n", key+"\n")
	}
	args = append(args, id, sidecar, key, key, sec(now))
	return s.updateOrRead(ctx, sidecar, id, now, `UPDATE hoop_approvals SET `+set+`
		WHERE id = ? AND sidecar = ? AND status = 'PROCESSING' AND (? = '' OR claim_key = ?) AND `+leaseHolds, args,
		func(cur Record) (Record, error) {
			if key != "" && cur.ClaimKey == key && cur.Status == to {
				return cur, nil
			}
			return cur, &ConflictError{Current: cur, Want: domain.StatusProcessing, To: to}
		})
}

// updateOrRead runs update (an UPDATE of sidecar's request id without its
// RETURNING clause) with args and returns the row it changed, as read at
// now; when it changed none, it reads the request (ErrNotFound when there
// is none) and returns miss of it.
func (s *sqlStore) updateOrRead(ctx context.Context, sidecar, id string, now time.Time, update string, args []any, miss func(cur Record) (Record, error)) (Record, error) {
	r, err := scanRecord(s.db.QueryRowContext(ctx, s.q(update+` RETURNING `+columns), args...))
	if err == nil {
		return r.Effective(now), nil
	}
	if !errors.Is(err, ErrNotFound) {
		return Record{}, err
	}
	cur, err := s.getFor(ctx, sidecar, id, now)
	if err != nil {
		return Record{}, err
	}
	return miss(cur)
}

// Decide implements Store: it reads the effective status, checks
// domain.Transition, and writes with an UPDATE conditioned on that status
// (and on the time limit not having lapsed). A concurrent change makes it
// read again.
func (s *sqlStore) Decide(ctx context.Context, id string, to domain.Status, reason, by string, now time.Time) (Record, domain.Status, error) {
	id, reason, by = text(id), text(reason), text(by)
	if _, ok := personFrom[to]; !ok {
		return Record{}, "", fmt.Errorf("store: decide: %s is not a person's decision", to)
	}
	if to != domain.StatusRejected {
		reason = ""
	}
	for attempt := 0; attempt < 5; attempt++ {
		cur, err := s.Get(ctx, id, now)
		if err != nil {
			return Record{}, "", err
		}
		if !fromOK(to, cur.Status) || !domain.CanTransition(cur.Status, to) {
			return cur, cur.Status, &ConflictError{Current: cur, Want: personFrom[to][0], To: to}
		}
		// A PROCESSING request does not lapse (its statement already runs),
		// so only PENDING and APPROVED are conditioned on the time limit.
		query := `UPDATE hoop_approvals SET status = ?, decided_at = ?, decided_by = ?, rejection_reason = ?
			WHERE id = ? AND status = ?`
		args := []any{string(to), sec(now), by, reason, id, string(cur.Status)}
		if cur.Status != domain.StatusProcessing {
			query += ` AND ` + notExpired
			args = append(args, sec(now))
		}
		r, err := s.changeAndAnnounce(ctx, query+` RETURNING `+columns, args, now)
		if err == nil {
			return r.Effective(now), cur.Status, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return Record{}, "", err
		}
		// Changed (or lapsed) since we read it: read again.
	}
	return Record{}, "", fmt.Errorf("store: decide %s: the request kept changing; try again", id)
}

// personFrom lists the statuses each person's decision starts from
// (docs/control-plane-api.md, "Approver calls"); domain.Transition allows
// more (PROCESSING → APPROVED is the Sidecar's settle, not a person's).
// Revoking a PROCESSING request clears one whose Sidecar never settled it.
var personFrom = map[domain.Status][]domain.Status{
	domain.StatusApproved: {domain.StatusPending},
	domain.StatusRejected: {domain.StatusPending},
	domain.StatusRevoked:  {domain.StatusApproved, domain.StatusProcessing},
}

func fromOK(to, cur domain.Status) bool {
	for _, f := range personFrom[to] {
		if f == cur {
			return true
		}
	}
	return false
}

// Ping implements Store.
func (s *sqlStore) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Close implements Store.
func (s *sqlStore) Close() error { return s.db.Close() }
