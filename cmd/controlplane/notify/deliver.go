package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// deliver POSTs rec to w, retrying with exponential backoff until it is
// accepted (2xx), refused for good (another 4xx), w.GiveUpAfter passes, or
// the Notifier closes. Every try carries the same X-Hoop-Delivery id, so a
// receiver can drop a repeat of a try that arrived but whose answer was lost.
func (n *Notifier) deliver(ctx context.Context, w Webhook, rec store.Record) {
	body, err := bodyFor(w, rec, n.o.PublicURL)
	if err != nil {
		n.o.Logger.Error("webhook: cannot build the body", "webhook", w.Name, "id", rec.ID, "err", err)
		return
	}
	delivery := newID()
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = n.o.FirstRetry
	b.MaxInterval = time.Minute
	giveUp := w.GiveUpAfter
	if giveUp <= 0 {
		giveUp = 10 * time.Minute
	}
	tries := 0
	_, err = backoff.Retry(ctx, func() (struct{}, error) {
		tries++
		return struct{}{}, n.post(ctx, w, body, delivery)
	}, backoff.WithBackOff(b), backoff.WithMaxElapsedTime(giveUp),
		backoff.WithNotify(func(err error, wait time.Duration) {
			n.o.Logger.Warn("webhook: delivery failed; retrying", "webhook", w.Name, "id", rec.ID, "try", tries, "retry_in", wait.Round(time.Millisecond), "err", err)
		}))
	if err != nil {
		n.o.Logger.Error("webhook: gave up", "webhook", w.Name, "id", rec.ID, "tries", tries, "err", err)
		return
	}
	n.o.Logger.Info("webhook: delivered", "webhook", w.Name, "id", rec.ID, "tries", tries)
}

// post sends one try. Its error is backoff.Permanent for an answer that
// retrying cannot change, and backoff.RetryAfter when the receiver said when.
func (n *Notifier) post(ctx context.Context, w Webhook, body []byte, delivery string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return backoff.Permanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hoop-controlplane/"+n.o.Version)
	req.Header.Set("X-Hoop-Event", "approval.requested")
	req.Header.Set("X-Hoop-Delivery", delivery)
	resp, err := n.o.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return backoff.Permanent(ctx.Err())
		}
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c == http.StatusTooManyRequests || c == http.StatusServiceUnavailable:
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 && s <= 3600 {
			return backoff.RetryAfter(s)
		}
		return fmt.Errorf("HTTP %d", c)
	case c >= 500, c == http.StatusRequestTimeout, c == http.StatusTooEarly:
		return fmt.Errorf("HTTP %d", c)
	default:
		return backoff.Permanent(fmt.Errorf("HTTP %d (not retried)", c))
	}
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
