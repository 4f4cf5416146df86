package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// A claim to PROCESSING takes a lease: the Sidecar that won it renews it
// (Renew) while it waits for the upstream's answer. A Sidecar that stops
// (killed, or cut off from the Control Plane) stops renewing, and when the
// lease lapses the request is settled as EXECUTED with an unknown outcome
// (SettledByLease): the statement may have run, so the approval is spent,
// and a settle or claim that arrives later finds it EXECUTED, so it never
// runs twice (docs/control-plane-api.md, "Renew").

// DefaultProcessingLease is the lease of a store opened without
// WithProcessingLease.
const DefaultProcessingLease = 60 * time.Second

// SettledByLease is Record.SettledBy of a request settled because its
// lease lapsed.
const SettledByLease = "lease"

// leaseHolds is the SQL condition "no lease, or it has not lapsed at ?".
const leaseHolds = `(lease_until IS NULL OR lease_until > ?)`

// Option configures Open.
type Option func(*sqlStore)

// WithProcessingLease sets the lease of a claim to PROCESSING (0: none, the
// request stays PROCESSING until settled or revoked).
func WithProcessingLease(d time.Duration) Option {
	return func(s *sqlStore) { s.lease = d }
}

// leaseFrom is lease_until for a claim to status to at now: now + the
// lease for PROCESSING, else NULL.
func (s *sqlStore) leaseFrom(to domain.Status, now time.Time) any {
	if to != domain.StatusProcessing || s.lease <= 0 {
		return nil
	}
	return sec(now.Add(s.lease))
}

// Lease implements Store.
func (s *sqlStore) Lease() time.Duration { return s.lease }

// Renew implements Store with one conditional UPDATE.
func (s *sqlStore) Renew(ctx context.Context, sidecar, id, key string, now time.Time) (Record, error) {
	sidecar, id, key = text(sidecar), text(id), text(key)
	if key == "" {
		return Record{}, errors.New("store: renew: no claim key")
	}
	return s.updateOrRead(ctx, sidecar, id, now, `UPDATE hoop_approvals SET lease_until = ?
		WHERE id = ? AND sidecar = ? AND status = 'PROCESSING' AND claim_key = ? AND lease_until IS NOT NULL AND lease_until > ?`,
		[]any{s.leaseFrom(domain.StatusProcessing, now), id, sidecar, key, sec(now)},
		func(cur Record) (Record, error) {
			return cur, &ConflictError{Current: cur, Want: domain.StatusProcessing, To: domain.StatusProcessing}
		})
}

// Lapse implements Store.
func (s *sqlStore) Lapse(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE hoop_approvals SET status = 'EXECUTED', settled_by = ?
		WHERE status = 'PROCESSING' AND NOT `+leaseHolds), SettledByLease, sec(now))
	if err != nil {
		return 0, fmt.Errorf("store: lapse: %w", err)
	}
	return res.RowsAffected()
}
