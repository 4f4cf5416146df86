package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// The outbox (docs/controlplane.md, "Notifications never lost"): a
// notification is a row of hoop_outbox, written in the same transaction as
// the change it announces, and a worker (package notify) claims, delivers
// and marks it. A claim is a lease, so of several replicas exactly one
// delivers each try, and a replica killed mid-try leaves a row that another
// (or the restarted one) claims again when the lease lapses.

// Events a notification announces (the body's "event" and X-Hoop-Event).
const (
	EventRequested = "approval.requested"
	EventApproved  = "approval.approved"
	EventRejected  = "approval.rejected"
	EventRevoked   = "approval.revoked"
	EventExpired   = "approval.expired"
	EventReminder  = "approval.reminder"
)

// Outbox states.
const (
	OutboxQueued    = "queued"
	OutboxDelivered = "delivered"
	OutboxFailed    = "failed" // given up (a final refusal, or give_up_after passed)
)

// Times of hoop_outbox are Unix milliseconds: retries start at 1 s.
const outboxTable = `
	id               TEXT NOT NULL UNIQUE,
	webhook          TEXT NOT NULL,
	event            TEXT NOT NULL,
	approval_id      TEXT NOT NULL,
	record           TEXT NOT NULL,
	created_ms       BIGINT NOT NULL,
	next_ms          BIGINT NOT NULL,
	tries            BIGINT NOT NULL DEFAULT 0,
	claimed_by       TEXT NOT NULL DEFAULT '',
	claimed_until_ms BIGINT NOT NULL DEFAULT 0,
	state            TEXT NOT NULL DEFAULT 'queued',
	last_error       TEXT NOT NULL DEFAULT '',
	done_ms          BIGINT
)`

const outboxIndex = `CREATE INDEX IF NOT EXISTS hoop_outbox_due ON hoop_outbox (state, next_ms)`

// Notification is one outbox row: one event for one webhook.
type Notification struct {
	// ID is the Standard Webhooks webhook-id: the same for every try and
	// every replica, so a receiver can drop a repeat.
	ID      string
	Webhook string
	Event   string
	// Record is the request as it was when the event happened.
	Record Record
	// CreatedAt is when the event happened (give_up_after counts from it).
	CreatedAt time.Time
	// Tries counts the claims so far, this one included.
	Tries int
}

// Outbox is the delivery side of the outbox. Every Store Open returns
// implements it (OutboxOf).
type Outbox interface {
	// Announce queues event for rec to each webhook unless it was queued
	// already (the id is derived from request, event and webhook), and
	// returns how many it queued. For events no transaction writes:
	// expiry and reminders.
	Announce(ctx context.Context, rec Record, event string, webhooks []string, now time.Time) (int, error)
	// ClaimDue claims up to n queued notifications due at now for owner,
	// until now + lease, oldest first. A notification claimed by another
	// owner whose lease holds is not returned.
	ClaimDue(ctx context.Context, owner string, n int, lease time.Duration, now time.Time) ([]Notification, error)
	// Finish ends owner's claim of id: state OutboxDelivered or
	// OutboxFailed. false when owner no longer holds the claim.
	Finish(ctx context.Context, owner, id, state, lastErr string, now time.Time) (bool, error)
	// Retry ends owner's claim of id and makes it due again at next.
	Retry(ctx context.Context, owner, id string, next time.Time, lastErr string) (bool, error)
	// Counts returns how many notifications are in each state.
	Counts(ctx context.Context) (map[string]int, error)
	// Prune deletes the notifications delivered or given up before
	// before, and returns how many.
	Prune(ctx context.Context, before time.Time) (int64, error)
}

// OutboxOf returns st's outbox (false for a Store not opened by Open).
func OutboxOf(st Store) (Outbox, bool) {
	o, ok := st.(*sqlStore)
	return o, ok
}

// WithOutbox makes every change of a request queue its notification, in
// the change's transaction, to each of webhooks (their names): a new
// request (File, Reopen) and a decision (approved, rejected, revoked).
func WithOutbox(webhooks []string) Option {
	return func(s *sqlStore) { s.hooks = webhooks }
}

// NotificationID is the webhook-id of event for request id to webhook:
// "msg_" and 32 hex digits of their SHA-256.
func NotificationID(id, event, webhook string) string {
	h := sha256.Sum256([]byte(id + "\x00" + event + "\x00" + webhook))
	return "msg_" + hex.EncodeToString(h[:16])
}

// DecisionEvent is the event announcing a move to status st ("" for none).
func DecisionEvent(st domain.Status) string {
	switch st {
	case domain.StatusApproved:
		return EventApproved
	case domain.StatusRejected:
		return EventRejected
	case domain.StatusRevoked:
		return EventRevoked
	case domain.StatusExpired:
		return EventExpired
	}
	return ""
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// enqueue writes event for rec to each of webhooks through ex (a
// transaction, or the database); a row with the same id is left alone.
func (s *sqlStore) enqueue(ctx context.Context, ex execer, rec Record, event string, webhooks []string, now time.Time) (int, error) {
	if event == "" || len(webhooks) == 0 {
		return 0, nil
	}
	snap, err := json.Marshal(rec)
	if err != nil {
		return 0, fmt.Errorf("store: outbox: %w", err)
	}
	ms := now.UnixMilli()
	added := 0
	for _, w := range webhooks {
		res, err := ex.ExecContext(ctx, s.q(`INSERT INTO hoop_outbox (id, webhook, event, approval_id, record, created_ms, next_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`),
			NotificationID(rec.ID, event, w), w, event, rec.ID, string(snap), ms, ms)
		if err != nil {
			return added, fmt.Errorf("store: outbox: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			added++
		}
	}
	return added, nil
}

// Announce implements Outbox.
func (s *sqlStore) Announce(ctx context.Context, rec Record, event string, webhooks []string, now time.Time) (int, error) {
	return s.enqueue(ctx, s.db, rec, event, webhooks, now)
}

// ClaimDue implements Outbox with one conditional UPDATE: a row another
// replica claimed in between fails the outer condition and is skipped
// (PostgreSQL also skips rows locked by a concurrent claim).
func (s *sqlStore) ClaimDue(ctx context.Context, owner string, n int, lease time.Duration, now time.Time) ([]Notification, error) {
	ms := now.UnixMilli()
	rows, err := s.db.QueryContext(ctx, s.q(`UPDATE hoop_outbox SET claimed_by = ?, claimed_until_ms = ?, tries = tries + 1
		WHERE seq IN (SELECT seq FROM hoop_outbox WHERE state = 'queued' AND next_ms <= ? AND claimed_until_ms <= ?
			ORDER BY seq LIMIT ?`+s.d.skipLocked+`)
		AND state = 'queued' AND claimed_until_ms <= ?
		RETURNING id, webhook, event, record, created_ms, tries`),
		owner, now.Add(lease).UnixMilli(), ms, ms, n, ms)
	if err != nil {
		return nil, fmt.Errorf("store: outbox claim: %w", err)
	}
	defer rows.Close()
	var out []Notification
	for rows.Next() {
		var nt Notification
		var snap string
		var created int64
		if err := rows.Scan(&nt.ID, &nt.Webhook, &nt.Event, &snap, &created, &nt.Tries); err != nil {
			return nil, fmt.Errorf("store: outbox claim: %w", err)
		}
		if err := json.Unmarshal([]byte(snap), &nt.Record); err != nil {
			return nil, fmt.Errorf("store: outbox %s: %w", nt.ID, err)
		}
		nt.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, nt)
	}
	return out, rows.Err()
}

// Finish implements Outbox.
func (s *sqlStore) Finish(ctx context.Context, owner, id, state, lastErr string, now time.Time) (bool, error) {
	return s.release(ctx, `state = ?, done_ms = ?, last_error = ?`, []any{state, now.UnixMilli(), text(lastErr)}, owner, id)
}

// Retry implements Outbox.
func (s *sqlStore) Retry(ctx context.Context, owner, id string, next time.Time, lastErr string) (bool, error) {
	return s.release(ctx, `next_ms = ?, last_error = ?`, []any{next.UnixMilli(), text(lastErr)}, owner, id)
}

func (s *sqlStore) release(ctx context.Context, set string, args []any, owner, id string) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE hoop_outbox SET `+set+`, claimed_until_ms = 0
		WHERE id = ? AND claimed_by = ? AND state = 'queued'`), append(args, id, owner)...)
	if err != nil {
		return false, fmt.Errorf("store: outbox %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Counts implements Outbox.
func (s *sqlStore) Counts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT state, count(*) FROM hoop_outbox GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("store: outbox counts: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

// Prune implements Outbox.
func (s *sqlStore) Prune(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM hoop_outbox WHERE state <> 'queued' AND done_ms < ?`), before.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("store: outbox prune: %w", err)
	}
	return res.RowsAffected()
}
