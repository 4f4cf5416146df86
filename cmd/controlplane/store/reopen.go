package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// Reopen implements Store: one transaction serialised per (sidecar,
// fingerprint) like File (pg_advisory_xact_lock; BEGIN IMMEDIATE on SQLite),
// so the check "refused and newest" and the new request cannot interleave
// with another reopen or a Sidecar's filing of the same statement.
func (s *sqlStore) Reopen(ctx context.Context, id, by string, now time.Time) (Record, Record, error) {
	id, by = text(id), text(by)
	first, err := s.Get(ctx, id, now)
	if err != nil {
		return Record{}, Record{}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Record{}, Record{}, fmt.Errorf("store: reopen: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	if s.d.lockFingerprint != nil {
		if err := s.d.lockFingerprint(ctx, tx, first.Sidecar, first.Fingerprint); err != nil {
			return Record{}, Record{}, fmt.Errorf("store: reopen: lock: %w", err)
		}
	}
	refused, err := scanRecord(tx.QueryRowContext(ctx, s.q(`SELECT `+columns+` FROM hoop_approvals WHERE id = ?`), id))
	if err != nil {
		return Record{}, Record{}, err
	}
	refused = refused.Effective(now)
	newest, err := scanRecord(tx.QueryRowContext(ctx, s.q(`SELECT `+columns+` FROM hoop_approvals
		WHERE sidecar = ? AND fingerprint = ? ORDER BY seq DESC LIMIT 1`), refused.Sidecar, refused.Fingerprint))
	if err != nil {
		return Record{}, Record{}, err
	}
	if why := reopenRefusal(refused, newest.Effective(now)); why != "" {
		return Record{}, refused, &ConflictError{Current: refused, Want: domain.ReopenFrom[0], To: domain.StatusPending, Why: why}
	}
	var limit time.Duration
	if refused.ExpiresAt != nil {
		limit = refused.ExpiresAt.Sub(refused.CreatedAt)
	}
	opened, err := s.insert(ctx, tx, refused.Sidecar, FileInput{Fingerprint: refused.Fingerprint,
		ListenerName: refused.ListenerName, ApprovalRule: refused.ApprovalRule, Statement: refused.Statement,
		Protocol: refused.Protocol, ClientIdentity: refused.ClientIdentity, TimeLimit: limit}, refused.ID, by, now)
	if err != nil {
		return Record{}, Record{}, fmt.Errorf("store: reopen: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE hoop_approvals SET reopened_as = ? WHERE id = ?`), opened.ID, refused.ID); err != nil {
		return Record{}, Record{}, fmt.Errorf("store: reopen: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Record{}, Record{}, fmt.Errorf("store: reopen: %w", err)
	}
	refused.ReopenedAs = opened.ID
	return opened.Effective(now), refused, nil
}

// reopenRefusal says why refused cannot be reopened, or "" when it can:
// domain.Reopenable and the newest request of its fingerprint (newest).
func reopenRefusal(refused, newest Record) string {
	switch {
	case refused.ReopenedAs != "":
		return "it was reopened already as " + refused.ReopenedAs
	case !domain.Reopenable(refused.Status):
		names := make([]string, len(domain.ReopenFrom))
		for i, st := range domain.ReopenFrom {
			names[i] = string(st)
		}
		return "it is " + string(refused.Status) + " (reopen needs " + strings.Join(names, " or ") + ")"
	case newest.ID != refused.ID:
		// Not reachable through this Control Plane (a refused request is
		// reused until reopened), but a newer request would be the one the
		// statement finds: reopening this one would not reach it.
		return "a newer request of the same statement exists: " + newest.ID + " (" + string(newest.Status) + ")"
	}
	return ""
}
