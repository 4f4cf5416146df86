package notify

import (
	"context"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// expiredLookBack bounds the expired requests a sweep announces: one that
// expired longer ago (say, before webhooks were configured) is old news.
const expiredLookBack = 24 * time.Hour

// keepDone is how long a delivered or given-up notification stays in the
// outbox (for an operator's query) before a sweep deletes it; longer than
// expiredLookBack, so an expiry is never queued a second time.
const keepDone = 7 * 24 * time.Hour

// sweepLimit is how many requests of each kind one sweep looks at.
const sweepLimit = 200

// sweep queues the notifications no transaction writes: a request whose
// time limit lapsed (approval.expired, to every webhook) and a request
// still PENDING past its policy's remind_after (approval.reminder, to its
// escalate_to webhook, else to every webhook). Each is queued once per
// webhook whatever the number of replicas (store.NotificationID). It
// returns how many it queued; errors are logged. It also deletes the
// notifications done for longer than keepDone.
func (n *Notifier) sweep(ctx context.Context, now time.Time) int {
	all := Names(n.o.Webhooks)
	if _, err := n.o.Outbox.Prune(ctx, now.Add(-keepDone)); err != nil {
		n.o.Logger.Warn("webhook: cannot prune the outbox; retrying", "err", err)
	}
	if n.swept == nil {
		n.swept = map[string]time.Time{}
	}
	for k, at := range n.swept {
		if now.Sub(at) > keepDone { // the outbox forgot it too: a reminder may go again
			delete(n.swept, k)
		}
	}
	added := 0
	announce := func(rec store.Record, event string, to []string) {
		key := rec.ID + "\x00" + event
		if _, done := n.swept[key]; done {
			return
		}
		k, err := n.o.Outbox.Announce(ctx, rec, event, to, now)
		if err != nil {
			n.o.Logger.Warn("webhook: cannot queue a notification; retrying", "id", rec.ID, "event", event, "err", err)
			return
		}
		n.swept[key] = now
		added += k
	}
	expired, err := n.o.Store.List(ctx, store.Filter{Status: domain.StatusExpired, Limit: sweepLimit}, now)
	if err != nil {
		n.o.Logger.Warn("webhook: cannot list the expired requests; retrying", "err", err)
	}
	for _, rec := range expired {
		if rec.DecidedAt != nil && now.Sub(*rec.DecidedAt) <= expiredLookBack {
			announce(rec, store.EventExpired, all)
		}
	}
	if n.o.Remind == nil {
		return added
	}
	pending, err := n.o.Store.List(ctx, store.Filter{Status: domain.StatusPending, Limit: sweepLimit}, now)
	if err != nil {
		n.o.Logger.Warn("webhook: cannot list the PENDING requests; retrying", "err", err)
	}
	for _, rec := range pending {
		after, to := n.o.Remind(rec.ApprovalRule)
		if after <= 0 || now.Sub(rec.CreatedAt) < after {
			continue
		}
		targets := all
		if to != "" {
			targets = []string{to}
		}
		announce(rec, store.EventReminder, targets)
	}
	return added
}
