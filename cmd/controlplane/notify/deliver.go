package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// deliver makes one try of nt, which this replica claimed, and records the
// outcome in the outbox: delivered (2xx), failed for good (another 4xx, or
// the webhook's give_up_after passed since the event), or due again after
// a backoff (network errors, 408, 425, 429, 5xx; Retry-After honoured).
func (n *Notifier) deliver(nt store.Notification) {
	log := n.o.Logger.With("webhook", nt.Webhook, "id", nt.Record.ID, "event", nt.Event)
	w, ok := n.hooks[nt.Webhook]
	if !ok {
		n.finish(nt, store.OutboxFailed, "webhook not configured")
		log.Error("webhook: gave up: no webhook of this name in the config", "notification", nt.ID)
		return
	}
	body, err := bodyFor(w, nt.Event, nt.Record, n.o.PublicURL)
	if err != nil {
		n.finish(nt, store.OutboxFailed, err.Error())
		log.Error("webhook: gave up: cannot build the body", "err", err)
		return
	}
	err = n.post(n.ctx, w, nt, body)
	var final *finalError
	switch {
	case err == nil:
		n.finish(nt, store.OutboxDelivered, "")
		log.Info("webhook: delivered", "tries", nt.Tries)
	case n.ctx.Err() != nil:
		// Close gave up waiting: leave it queued for the next claim.
		n.retry(nt, time.Now(), "stopped")
	case errors.As(err, &final):
		n.finish(nt, store.OutboxFailed, err.Error())
		log.Error("webhook: gave up", "tries", nt.Tries, "err", err)
	default:
		giveUp := w.GiveUpAfter
		if giveUp <= 0 {
			giveUp = DefaultGiveUpAfter
		}
		if time.Since(nt.CreatedAt) >= giveUp {
			n.finish(nt, store.OutboxFailed, err.Error())
			log.Error("webhook: gave up", "tries", nt.Tries, "give_up_after", giveUp.String(), "err", err)
			return
		}
		wait := n.backoff(nt.Tries)
		var later *laterError
		if errors.As(err, &later) {
			wait = later.after
		}
		n.retry(nt, time.Now().Add(wait), err.Error())
		log.Warn("webhook: delivery failed; retrying", "tries", nt.Tries, "retry_in", wait.Round(time.Millisecond), "err", err)
	}
}

// backoff is the wait after try number tries (1-based): FirstRetry ×
// 1.5^(tries-1), at most a minute, randomised ±50%.
func (n *Notifier) backoff(tries int) time.Duration {
	d := float64(n.o.FirstRetry) * math.Pow(1.5, float64(max(tries-1, 0)))
	d = min(d, float64(time.Minute))
	return time.Duration(d * (0.5 + rand.Float64()))
}

// finish and retry write the outcome with their own context: a try cut
// short by Close still records it.
func (n *Notifier) finish(nt store.Notification, state, lastErr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := n.o.Outbox.Finish(ctx, n.owner, nt.ID, state, lastErr, time.Now()); err != nil {
		n.o.Logger.Error("webhook: cannot record the outcome; it will be tried again", "notification", nt.ID, "err", err)
	}
}

func (n *Notifier) retry(nt store.Notification, next time.Time, lastErr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := n.o.Outbox.Retry(ctx, n.owner, nt.ID, next, lastErr); err != nil {
		n.o.Logger.Error("webhook: cannot record the retry", "notification", nt.ID, "err", err)
	}
}

// finalError is an answer that retrying cannot change.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }

// laterError is a 429 or 503 whose Retry-After said when to try again.
type laterError struct {
	code  int
	after time.Duration
}

func (e *laterError) Error() string { return fmt.Sprintf("HTTP %d", e.code) }

// post sends one try with the Standard Webhooks headers (sign.go).
func (n *Notifier) post(ctx context.Context, w Webhook, nt store.Notification, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return &finalError{err}
	}
	ts := time.Now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hoop-controlplane/"+n.o.Version)
	req.Header.Set("X-Hoop-Event", nt.Event)
	req.Header.Set("X-Hoop-Delivery", nt.ID)
	req.Header.Set("webhook-id", nt.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	if w.Secret != nil {
		req.Header.Set("webhook-signature", Sign(w.Secret, nt.ID, ts, body))
	}
	resp, err := n.o.Client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c == http.StatusTooManyRequests || c == http.StatusServiceUnavailable:
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 && s <= 3600 {
			return &laterError{c, time.Duration(s) * time.Second}
		}
		return fmt.Errorf("HTTP %d", c)
	case c >= 500, c == http.StatusRequestTimeout, c == http.StatusTooEarly:
		return fmt.Errorf("HTTP %d", c)
	default:
		return &finalError{fmt.Errorf("HTTP %d (not retried)", c)}
	}
}
