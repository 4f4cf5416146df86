package controlplane

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

const reviewsPath = "/api/sidecars/reviews"

var _ ports.ControlPlane = (*Client)(nil)

func reviewPath(id, suffix string) string {
	return reviewsPath + "/" + url.PathEscape(id) + suffix
}

// notAnID is the ErrNotFound of call for an id that no URL path can carry:
// "" and the dot segments "." and "..", which HTTP servers resolve away
// (a Control Plane answers them with a redirect). Such an id names no
// approval request, so the call is not made.
func notAnID(call, id string) error {
	if id != "" && id != "." && id != ".." {
		return nil
	}
	return &Error{Call: call, Kind: ports.ErrNotFound, Cause: fmt.Errorf("%q is not an approval id", id)}
}

// File files an approval request or returns the one the Control Plane reuses
// (POST /api/sidecars/reviews). 201 → Reused false, 200 → Reused true (another
// 2xx: the "reused" field decides). StatusKnown is false when the answer has
// no status. Never retried. Errors: ErrUnavailable, ErrOlder, ErrUnauthorized,
// ErrRejected (400 invalid), ErrBadAnswer.
func (c *Client) File(ctx context.Context, r ports.FileRequest) (f ports.Filed, err error) {
	c.observed("file", func() error {
		var a answer
		a, err = c.once(ctx, request{call: "file", method: http.MethodPost, path: reviewsPath, body: fileBody{
			Fingerprint: r.Fingerprint, ListenerName: r.ListenerName, ApprovalRule: r.ApprovalRule,
			Statement: r.Statement, Protocol: r.Protocol, ClientIdentity: r.ClientIdentity,
			TimeLimitSeconds: int64(math.Ceil(r.TimeLimit.Seconds()))}})
		if err != nil {
			return err
		}
		var w wireApproval
		if err = decode("file", a, &w); err != nil {
			return err
		}
		if f.Approval, f.StatusKnown, err = w.toDomain(); err != nil {
			err = &Error{Call: "file", Kind: ErrBadAnswer, HTTPStatus: a.status, Cause: err}
			return err
		}
		switch {
		case a.status == http.StatusCreated:
			f.Reused = false
		case a.status == http.StatusOK:
			f.Reused = true
		default:
			f.Reused = w.Reused != nil && *w.Reused
		}
		return nil
	})
	return f, err
}

// Get reads one approval request (GET /api/sidecars/reviews/{id}); retried on
// network errors and 5xx. Errors: ErrNotFound, ErrUnavailable, ErrOlder,
// ErrUnauthorized, ErrBadAnswer.
func (c *Client) Get(ctx context.Context, id string) (ap domain.Approval, err error) {
	c.observed("get", func() error {
		if err = notAnID("get", id); err != nil {
			return err
		}
		var a answer
		if a, err = c.read(ctx, request{call: "get", method: http.MethodGet, path: reviewPath(id, "")}); err != nil {
			return err
		}
		ap, err = approvalOf("get", a)
		return err
	})
	return ap, err
}

// List lists this Sidecar's approval requests, newest first
// (GET /api/sidecars/reviews?status=&limit=); status "" and limit 0 leave the
// parameter out (every status, the Control Plane's default limit of 20).
// Retried like Get. Errors: ErrUnavailable, ErrOlder, ErrUnauthorized,
// ErrRejected (400 invalid), ErrBadAnswer.
func (c *Client) List(ctx context.Context, status domain.Status, limit int) (out []domain.Approval, err error) {
	c.observed("list", func() error {
		q := url.Values{}
		if status != "" {
			q.Set("status", string(status))
		}
		if limit > 0 {
			q.Set("limit", strconv.Itoa(limit))
		}
		var a answer
		if a, err = c.read(ctx, request{call: "list", method: http.MethodGet, path: reviewsPath, query: q}); err != nil {
			return err
		}
		var lb listBody
		if err = decode("list", a, &lb); err != nil {
			return err
		}
		out = make([]domain.Approval, 0, len(lb.Reviews))
		for i, w := range lb.Reviews {
			ap, _, derr := w.toDomain()
			if derr != nil {
				err = &Error{Call: "list", Kind: ErrBadAnswer, HTTPStatus: a.status, Cause: fmt.Errorf("reviews[%d]: %w", i, derr)}
				return err
			}
			out = append(out, ap)
		}
		return nil
	})
	return out, err
}

// Claim atomically spends an APPROVED request with this fingerprint
// (POST /api/sidecars/reviews/{id}/claim): 200 → won with the new state;
// 409 claim_lost → won false with the current state from "review". With a
// key it is retried as a keyed write (a lost answer is asked again: the
// Control Plane answers a repeated key as it did the first time); without
// one it is tried once. Errors: ErrNotFound, ErrUnavailable, ErrOlder, ErrUnauthorized,
// ErrConflict (another 409, or claim_lost without a readable "review"),
// ErrBadAnswer.
func (c *Client) Claim(ctx context.Context, id, fingerprint string, spend ports.SpendOn, key ports.ClaimKey) (ap domain.Approval, won bool, err error) {
	if spend == "" {
		spend = ports.SpendOnSent
	}
	c.observed("claim", func() error {
		if err = notAnID("claim", id); err != nil {
			return err
		}
		var a answer
		a, err = c.write(ctx, key, request{call: "claim", method: http.MethodPost, path: reviewPath(id, "/claim"),
			body: claimBody{Fingerprint: fingerprint, SpendApprovalOn: string(spend), ClaimKey: string(key)}})
		if err != nil {
			if a.status == http.StatusConflict && errorCode(err) == "claim_lost" {
				if cur, ok := conflictState(a); ok {
					ap, err = cur, nil
				}
			}
			return err
		}
		// One read of the answer: the approval, whether it says this claim
		// won, and the key it echoes.
		var said struct {
			wireApproval
			Claimed  bool   `json:"claimed"`
			ClaimKey string `json:"claim_key"`
		}
		if err = decode("claim", a, &said); err == nil {
			ap, _, err = said.toDomain()
		}
		if err != nil {
			// A 2xx whose approval cannot be read may be a won claim: its
			// outcome is as unknown as a lost answer's, so it is reported as
			// one (the gate then remembers the key for the resend).
			err = &Error{Call: "claim", Kind: ports.ErrUnavailable, HTTPStatus: a.status, Cause: err}
			return err
		}
		to := domain.StatusExecuted
		if spend == ports.SpendOnAccepted {
			to = domain.StatusProcessing
		}
		// Won only when the answer says so of this request, in the status
		// the claim moves it to; any other 2xx leaves the outcome unknown,
		// as a lost answer does (the gate remembers the key).
		if !said.Claimed || ap.ID != id || ap.Status != to {
			err = &Error{Call: "claim", Kind: ports.ErrUnavailable, HTTPStatus: a.status,
				Cause: fmt.Errorf("a %d answer that does not say this claim won (claimed %v, id %q, status %s, want %s)",
					a.status, said.Claimed, ap.ID, ap.Status, to)}
			ap = domain.Approval{}
			return err
		}
		if key != "" {
			echoed := said.ClaimKey == string(key)
			c.keysKept.Store(echoed)
			if echoed && spend == ports.SpendOnAccepted {
				c.echoed.add(key)
			}
		}
		won = true
		return nil
	})
	return ap, won, err
}

// Settle ends a PROCESSING request (POST /api/sidecars/reviews/{id}/settle):
// accepted → EXECUTED, refused → APPROVED, for the claim that key names.
// Retried as a keyed write when key is not "" (as Claim), except a
// give-back of a claim whose answer did not echo its key (EchoedClaimKey):
// a Control Plane (or replica) that ignores keys could apply a repeated
// give-back after the next attempt's claim and give that one back, so it is
// tried once. Errors:
// ErrConflict (409 not_processing; the approval returned is the current
// state when the answer carried one), ErrNotFound, ErrUnavailable, ErrOlder,
// ErrUnauthorized, ErrRejected, ErrBadAnswer.
func (c *Client) Settle(ctx context.Context, id string, key ports.ClaimKey, accepted bool) (ap domain.Approval, err error) {
	outcome := "refused"
	if accepted {
		outcome = "accepted"
	}
	c.observed("settle", func() error {
		if err = notAnID("settle", id); err != nil {
			return err
		}
		var a answer
		retryKey := key
		if !accepted && !c.EchoedClaimKey(key) {
			retryKey = ""
		}
		a, err = c.write(ctx, retryKey, request{call: "settle", method: http.MethodPost, path: reviewPath(id, "/settle"),
			body: settleBody{Outcome: outcome, ClaimKey: string(key)}})
		if !errors.Is(err, ports.ErrUnavailable) {
			c.echoed.remove(key) // answered: no settle of this claim follows
		}
		if err != nil {
			if a.status == http.StatusConflict {
				if cur, ok := conflictState(a); ok {
					ap = cur
				}
			}
			return err
		}
		ap, err = approvalOf("settle", a)
		return err
	})
	return ap, err
}

// KeepsClaimKeys implements ports.ClaimKeyKeeper: true once Info answered
// "claim_keys": true or a won keyed claim's answer echoed its claim_key
// (the reference Control Plane does both, docs/control-plane-api.md,
// "Claim"), until a won keyed claim's answer does not.
func (c *Client) KeepsClaimKeys() bool { return c.keysKept.Load() }

// EchoedClaimKey implements ports.ClaimKeyKeeper: true while key's claim
// (spend_approval_on: accepted) won with an answer that echoed it and its
// settle has not been answered.
func (c *Client) EchoedClaimKey(key ports.ClaimKey) bool { return key != "" && c.echoed.has(key) }

// Info reads which Control Plane this is (GET /api/sidecars/info); retried
// like Get. Used for /readyz and the startup log line. Errors: ErrUnavailable,
// ErrOlder (also when api_version < 1), ErrUnauthorized, ErrBadAnswer.
func (c *Client) Info(ctx context.Context) (in Info, err error) {
	c.observed("info", func() error {
		var a answer
		if a, err = c.read(ctx, request{call: "info", method: http.MethodGet, path: "/api/sidecars/info"}); err != nil {
			return err
		}
		if err = decode("info", a, &in); err != nil {
			return err
		}
		if in.ClaimKeys {
			c.keysKept.Store(true)
		}
		if in.APIVersion < APIVersion {
			err = &Error{Call: "info", Kind: ports.ErrOlder, HTTPStatus: a.status,
				Cause: fmt.Errorf("api_version %d, this Sidecar needs %d", in.APIVersion, APIVersion)}
		}
		return err
	})
	return in, err
}

// approvalOf decodes a 2xx answer holding one approval object.
func approvalOf(call string, a answer) (domain.Approval, error) {
	var w wireApproval
	if err := decode(call, a, &w); err != nil {
		return domain.Approval{}, err
	}
	ap, _, err := w.toDomain()
	if err != nil {
		return domain.Approval{}, &Error{Call: call, Kind: ErrBadAnswer, HTTPStatus: a.status, Cause: err}
	}
	return ap, nil
}

// conflictState reads the current state from a 409's "review"; ok is false
// when the body has none (the caller then keeps the 409's error).
func conflictState(a answer) (ap domain.Approval, ok bool) {
	var cb conflictBody
	if decode("", a, &cb) != nil || cb.Review == nil {
		return ap, false
	}
	ap, _, err := cb.Review.toDomain()
	return ap, err == nil
}

// errorCode returns the JSON code of an *Error ("" otherwise).
func errorCode(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return ""
}

// Ping reports whether the Control Plane answers Info with API version 1 or
// later (for /readyz). Errors as Info.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.Info(ctx)
	return err
}
