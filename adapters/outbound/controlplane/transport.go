package controlplane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/hoophq/sidecar/ports"
)

// Retry policy of idempotent reads: at most readTries tries, waiting
// 100 ms, then 200 ms … up to 1 s (±20 %) between them.
const (
	readTries       = 3
	backoffInitial  = 100 * time.Millisecond
	backoffMax      = time.Second
	maxAnswerBytes  = 4 << 20
	headerAPI       = "X-Hoop-Api-Version"
	headerSidecarV  = "X-Hoop-Sidecar-Version"
	minScrubbedSize = 4
)

// request is one call's HTTP request, before the base URL and headers.
type request struct {
	call   string // file, get, list, claim, settle, info
	method string
	path   string // escaped, under the base URL, e.g. /api/sidecars/reviews/ID
	query  url.Values
	body   any // JSON-encoded when not nil
}

// answer is what came back: the status, headers and (bounded) body.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// observed runs fn and reports it to Options.Observe.
func (c *Client) observed(call string, fn func() error) {
	start := time.Now()
	err := fn()
	if c.observe != nil {
		c.observe(call, time.Since(start).Seconds(), ErrKind(err))
	}
}

// once performs one HTTP exchange bounded by the per-call timeout. It
// returns the answer and, for anything but a 2xx answer of a Control Plane
// that speaks API version 1, an *Error (see classify). On a 4xx the answer
// is returned too, so callers can read a 409's body.
func (c *Client) once(ctx context.Context, r request) (answer, error) {
	tok, err := c.token.Token()
	if err != nil {
		return answer{}, &Error{Call: r.call, Kind: ErrNoToken, Cause: err}
	}
	var body io.Reader
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return answer{}, &Error{Call: r.call, Kind: ErrRejected, Cause: err}
		}
		body = bytes.NewReader(b)
	}
	u := *c.base
	u.RawPath = c.base.EscapedPath() + r.path
	u.Path, _ = url.PathUnescape(u.RawPath)
	u.RawQuery = r.query.Encode()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return answer{}, scrub(&Error{Call: r.call, Kind: ErrRejected, Cause: err}, tok)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.version != "" {
		req.Header.Set(headerSidecarV, c.version)
		req.Header.Set("User-Agent", "hoop-sidecar/"+c.version)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, scrub(&Error{Call: r.call, Kind: ports.ErrUnavailable, Cause: err}, tok)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	a := answer{status: resp.StatusCode, header: resp.Header, body: b}
	if err != nil {
		return a, scrub(&Error{Call: r.call, Kind: ports.ErrUnavailable, HTTPStatus: resp.StatusCode,
			Cause: fmt.Errorf("reading the answer: %w", err)}, tok)
	}
	if len(b) > maxAnswerBytes {
		return a, &Error{Call: r.call, Kind: ErrBadAnswer, HTTPStatus: resp.StatusCode,
			Cause: fmt.Errorf("answer larger than %d bytes", maxAnswerBytes)}
	}
	if e := classify(r.call, resp.StatusCode, resp.Header, b); e != nil {
		return a, scrub(e, tok)
	}
	return a, nil
}

// read performs an idempotent exchange (Get, List, Info), retrying network
// errors and 5xx answers (ports.ErrUnavailable) with exponential backoff,
// at most readTries tries, bounded by ctx. A try that ran out of the
// per-exchange timeout is not retried (a hung Control Plane costs a reader
// one timeout, not readTries of them). Other errors end it at once.
func (c *Client) read(ctx context.Context, r request) (answer, error) {
	return c.retried(ctx, r, false)
}

// write performs a claim or settle. With a key it is idempotent at the
// Control Plane (docs/control-plane-api.md, "Claim"), so it is retried as
// read is, and also after a try that ran out of the per-exchange timeout:
// that try may have been applied with its answer lost, and only asking
// again with the same key tells. At most readTries tries, bounded by ctx.
// Without a key it is tried once.
func (c *Client) write(ctx context.Context, key ports.ClaimKey, r request) (answer, error) {
	if key == "" {
		return c.once(ctx, r)
	}
	return c.retried(ctx, r, true)
}

// retried runs once up to readTries times with backoff while it fails with
// ports.ErrUnavailable and ctx lasts; timeouts says whether a try that ran
// out of c.timeout is tried again.
func (c *Client) retried(ctx context.Context, r request, timeouts bool) (answer, error) {
	var last error
	bo := &backoff.ExponentialBackOff{InitialInterval: backoffInitial, RandomizationFactor: 0.2,
		Multiplier: 2, MaxInterval: backoffMax}
	a, err := backoff.Retry(ctx, func() (answer, error) {
		a, err := c.once(ctx, r)
		if err == nil {
			return a, nil
		}
		last = err
		// A try that ran out of c.timeout met a Control Plane that accepts
		// and does not answer: a reader trying again would wait readTries
		// timeouts instead of one.
		if errors.Is(err, ports.ErrUnavailable) && ctx.Err() == nil && (timeouts || !errors.Is(err, context.DeadlineExceeded)) {
			return a, err
		}
		return a, backoff.Permanent(err)
	}, backoff.WithBackOff(bo), backoff.WithMaxTries(readTries), backoff.WithMaxElapsedTime(0))
	if err != nil {
		var ce *Error
		if !errors.As(err, &ce) && last != nil {
			// The context ended between tries: report the last failure.
			return a, last
		}
		if ce == nil {
			return a, &Error{Call: r.call, Kind: ports.ErrUnavailable, Cause: err}
		}
	}
	return a, err
}

// decode reads a 2xx answer's JSON body into v.
func decode(call string, a answer, v any) error {
	if err := json.Unmarshal(a.body, v); err != nil {
		return &Error{Call: call, Kind: ErrBadAnswer, HTTPStatus: a.status, Cause: err}
	}
	return nil
}

// scrub removes the token from e's text (a Control Plane or proxy that
// echoes it must not leak it into logs).
func scrub(e *Error, tok string) *Error {
	if len(tok) < minScrubbedSize {
		return e
	}
	e.Message = strings.ReplaceAll(e.Message, tok, Redacted)
	if e.Cause != nil && strings.Contains(e.Cause.Error(), tok) {
		e.Cause = &scrubbed{msg: strings.ReplaceAll(e.Cause.Error(), tok, Redacted), orig: e.Cause}
	}
	return e
}

// scrubbed hides an error's text that contained the token. errors.Is still
// sees through it (Is), but errors.As and Unwrap do not, so nothing reaches
// the original text.
type scrubbed struct {
	msg  string
	orig error
}

func (s *scrubbed) Error() string        { return s.msg }
func (s *scrubbed) Is(target error) bool { return errors.Is(s.orig, target) }
