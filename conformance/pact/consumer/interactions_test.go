//go:build pact

package consumer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pact-foundation/pact-go/v2/matchers"

	cpclient "github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/conformance/pact/contract"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// interaction is one request the Sidecar makes and one answer it must
// handle, with the check that the real client handled it.
type interaction struct {
	state  string
	params map[string]any
	desc   string // the pact's "uponReceiving"
	method string
	path   matchers.Matcher // a literal (matchers.S) or FromProviderState
	token  string           // contract.SidecarToken unless set
	query  map[string]string
	body   map[string]any // request JSON, nil for none
	status int
	answer map[string]any // response JSON, nil for none
	// older: the answer is JSON without X-Hoop-Api-Version (a Control Plane
	// older than the contract); otherwise it carries that header too.
	older bool
	// check calls the client against the mock and says what it got wrong.
	check func(ctx context.Context, c *cpclient.Client) error
}

// largeStatement is a statement over contract.SmallBodyLimit bytes.
var largeStatement = "DELETE FROM invoices WHERE id IN (" + strings.Repeat("42, ", contract.SmallBodyLimit/4) + "43)"

func fp(v string) map[string]any { return map[string]any{contract.ParamFingerprint: v} }

var fileBody = map[string]any{
	"listener_name":   like(contract.FileDefaults.ListenerName),
	"approval_rule":   like(contract.FileDefaults.ApprovalRule),
	"statement":       like(contract.FileDefaults.Statement),
	"protocol":        like(contract.FileDefaults.Protocol),
	"client_identity": like(contract.FileDefaults.ClientIdentity),
}

func withKeys(m map[string]any, extra map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func fileRequest(fingerprint string, limit time.Duration) ports.FileRequest {
	d := contract.FileDefaults
	return ports.FileRequest{Fingerprint: fingerprint, ListenerName: d.ListenerName, ApprovalRule: d.ApprovalRule,
		Statement: d.Statement, Protocol: d.Protocol, ClientIdentity: d.ClientIdentity, TimeLimit: limit}
}

// want reports a mismatch between what the client returned and what the
// mock answered.
func want(what string, got, exp any) error {
	if fmt.Sprint(got) == fmt.Sprint(exp) {
		return nil
	}
	return fmt.Errorf("%s: got %v, want %v", what, got, exp)
}

func wantErr(err, kind error) error {
	if !errors.Is(err, kind) {
		return fmt.Errorf("error %v, want %v", err, kind)
	}
	return nil
}

func read(status domain.Status, then func(domain.Approval) error) func(context.Context, *cpclient.Client) error {
	return func(ctx context.Context, c *cpclient.Client) error {
		ap, err := c.Get(ctx, exampleID)
		if err != nil {
			return err
		}
		if err := errors.Join(want("id", ap.ID, exampleID), want("status", ap.Status, status)); err != nil {
			return err
		}
		if then != nil {
			return then(ap)
		}
		return nil
	}
}

// interactions is every call a Sidecar makes and every answer it handles
// (docs/control-plane-api.md, "Sidecar calls").
var interactions = []interaction{
	{
		state: contract.StateEmpty, desc: "a request to file a new approval request with a time limit",
		method: http.MethodPost, path: matchers.S("/api/sidecars/reviews"),
		body:   withKeys(fileBody, map[string]any{"fingerprint": like("v1:pact-new"), "time_limit_seconds": matchers.Integer(1800)}),
		status: http.StatusCreated,
		answer: approval("PENDING", map[string]any{"expires_at": when(exampleExpires), "reused": false}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			f, err := c.File(ctx, fileRequest("v1:pact-new", 30*time.Minute))
			if err != nil {
				return err
			}
			return errors.Join(want("reused", f.Reused, false), want("status known", f.StatusKnown, true),
				want("status", f.Approval.Status, domain.StatusPending), want("id", f.Approval.ID, exampleID),
				want("expires_at", f.Approval.ExpiresAt != nil, true), want("decided_at", f.Approval.DecidedAt, (*time.Time)(nil)))
		},
	},
	{
		state: contract.StatePending, params: fp("v1:pact-reused"),
		desc:   "a request to file an approval request whose fingerprint is already PENDING",
		method: http.MethodPost, path: matchers.S("/api/sidecars/reviews"),
		body:   withKeys(fileBody, map[string]any{"fingerprint": "v1:pact-reused"}),
		status: http.StatusOK,
		answer: approval("PENDING", map[string]any{"reused": true}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			f, err := c.File(ctx, fileRequest("v1:pact-reused", 0))
			if err != nil {
				return err
			}
			return errors.Join(want("reused", f.Reused, true), want("status", f.Approval.Status, domain.StatusPending))
		},
	},
	{
		state: contract.StatePending, params: fp("v1:pact-read-pending"),
		desc: "a request to read a PENDING approval request", method: http.MethodGet, path: reviewPath(""),
		status: http.StatusOK, answer: approval("PENDING", nil),
		check: read(domain.StatusPending, func(ap domain.Approval) error {
			return errors.Join(want("decided_at", ap.DecidedAt, (*time.Time)(nil)),
				want("listener", ap.ListenerName, contract.FileDefaults.ListenerName))
		}),
	},
	{
		state: contract.StateApproved, params: fp("v1:pact-read-approved"),
		desc: "a request to read an APPROVED approval request", method: http.MethodGet, path: reviewPath(""),
		status: http.StatusOK, answer: approval("APPROVED", map[string]any{"decided_at": when(exampleDecided)}),
		check: read(domain.StatusApproved, func(ap domain.Approval) error {
			return want("decided_at", ap.DecidedAt != nil, true)
		}),
	},
	{
		state: contract.StateRejected, params: map[string]any{contract.ParamFingerprint: "v1:pact-read-rejected", contract.ParamReason: "not during the freeze"},
		desc: "a request to read an approval request REJECTED with a reason", method: http.MethodGet, path: reviewPath(""),
		status: http.StatusOK,
		answer: approval("REJECTED", map[string]any{"decided_at": when(exampleDecided), "rejection_reason": like("not during the freeze")}),
		check: read(domain.StatusRejected, func(ap domain.Approval) error {
			return want("rejection_reason", ap.RejectionReason, "not during the freeze")
		}),
	},
	{
		state: contract.StateExpired, params: fp("v1:pact-read-expired"),
		desc: "a request to read an EXPIRED approval request", method: http.MethodGet, path: reviewPath(""),
		status: http.StatusOK,
		answer: approval("EXPIRED", map[string]any{"decided_at": when(exampleExpires), "expires_at": when(exampleExpires)}),
		check: read(domain.StatusExpired, func(ap domain.Approval) error {
			if ap.ExpiresAt == nil {
				return errors.New("expires_at: got none")
			}
			return want("expires_at", ap.ExpiresAt.Format(time.RFC3339), exampleExpires)
		}),
	},
	{
		state: contract.StateEmpty, desc: "a request to read an approval request that does not exist",
		method: http.MethodGet, path: matchers.S("/api/sidecars/reviews/" + exampleID),
		status: http.StatusNotFound, answer: errorBody("not_found"),
		check: func(ctx context.Context, c *cpclient.Client) error {
			_, err := c.Get(ctx, exampleID)
			return wantErr(err, ports.ErrNotFound)
		},
	},
	{
		state: contract.StateOtherSidecar, params: fp("v1:pact-other"),
		desc: "a request to read another Sidecar's approval request", method: http.MethodGet, path: reviewPath(""),
		status: http.StatusNotFound, answer: errorBody("not_found"),
		check: func(ctx context.Context, c *cpclient.Client) error {
			_, err := c.Get(ctx, exampleID)
			return wantErr(err, ports.ErrNotFound)
		},
	},
	{
		state: contract.StateList, desc: "a request to list PENDING approval requests with a limit",
		method: http.MethodGet, path: matchers.S("/api/sidecars/reviews"),
		query:  map[string]string{"status": "PENDING", "limit": "2"},
		status: http.StatusOK,
		answer: map[string]any{"reviews": matchers.ArrayMinMaxLike(approval("PENDING", nil), 2, 2)},
		check: func(ctx context.Context, c *cpclient.Client) error {
			list, err := c.List(ctx, domain.StatusPending, 2)
			if err != nil {
				return err
			}
			if err := want("count", len(list), 2); err != nil {
				return err
			}
			return errors.Join(want("status", list[0].Status, domain.StatusPending), want("status", list[1].Status, domain.StatusPending))
		},
	},
	{
		state: contract.StateApproved, params: fp("v1:pact-claim-sent"),
		desc: "a request to claim an APPROVED approval request, spent when sent", method: http.MethodPost, path: reviewPath("/claim"),
		body:   map[string]any{"fingerprint": "v1:pact-claim-sent", "spend_approval_on": "sent", "claim_key": contract.ClaimKey},
		status: http.StatusOK,
		answer: approval("EXECUTED", map[string]any{"decided_at": when(exampleDecided), "claimed": true, "claim_key": contract.ClaimKey}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			ap, won, err := c.Claim(ctx, exampleID, "v1:pact-claim-sent", ports.SpendOnSent, contract.ClaimKey)
			if err != nil {
				return err
			}
			return errors.Join(want("won", won, true), want("status", ap.Status, domain.StatusExecuted), want("keeps claim keys", c.KeepsClaimKeys(), true))
		},
	},
	{
		state: contract.StateApproved, params: fp("v1:pact-claim-accepted"),
		desc: "a request to claim an APPROVED approval request, spent when accepted", method: http.MethodPost, path: reviewPath("/claim"),
		body:   map[string]any{"fingerprint": "v1:pact-claim-accepted", "spend_approval_on": "accepted", "claim_key": contract.ClaimKey},
		status: http.StatusOK,
		answer: approval("PROCESSING", map[string]any{"decided_at": when(exampleDecided), "claimed": true, "claim_key": contract.ClaimKey}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			ap, won, err := c.Claim(ctx, exampleID, "v1:pact-claim-accepted", ports.SpendOnAccepted, contract.ClaimKey)
			if err != nil {
				return err
			}
			return errors.Join(want("won", won, true), want("status", ap.Status, domain.StatusProcessing), want("keeps claim keys", c.KeepsClaimKeys(), true))
		},
	},
	{
		state: contract.StateExecuted, params: fp("v1:pact-claim-lost"),
		desc: "a request to claim an approval request another claim already spent", method: http.MethodPost, path: reviewPath("/claim"),
		body:   map[string]any{"fingerprint": "v1:pact-claim-lost", "spend_approval_on": "sent", "claim_key": contract.OtherClaimKey},
		status: http.StatusConflict,
		answer: withKeys(errorBody("claim_lost"), map[string]any{"claimed": false,
			"review": approval("EXECUTED", map[string]any{"decided_at": when(exampleDecided)})}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			ap, won, err := c.Claim(ctx, exampleID, "v1:pact-claim-lost", ports.SpendOnSent, contract.OtherClaimKey)
			if err != nil {
				return fmt.Errorf("a lost claim is not an error, got %w", err)
			}
			return errors.Join(want("won", won, false), want("status", ap.Status, domain.StatusExecuted))
		},
	},
	{
		// docs/control-plane-api.md, "Claim": the attempt that won, asking
		// again because its answer was lost, is told it won.
		state: contract.StateExecuted, params: fp("v1:pact-claim-repeated"),
		desc: "a claim repeated with the claim key that won it", method: http.MethodPost, path: reviewPath("/claim"),
		body:   map[string]any{"fingerprint": "v1:pact-claim-repeated", "spend_approval_on": "sent", "claim_key": contract.ClaimKey},
		status: http.StatusOK,
		answer: approval("EXECUTED", map[string]any{"decided_at": when(exampleDecided), "claimed": true, "claim_key": contract.ClaimKey}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			ap, won, err := c.Claim(ctx, exampleID, "v1:pact-claim-repeated", ports.SpendOnSent, contract.ClaimKey)
			if err != nil {
				return err
			}
			return errors.Join(want("won", won, true), want("status", ap.Status, domain.StatusExecuted), want("keeps claim keys", c.KeepsClaimKeys(), true))
		},
	},
	{
		state: contract.StateExecuted, params: fp("v1:pact-settle-repeated"),
		desc: "a settle repeated with the claim key after it took effect", method: http.MethodPost, path: reviewPath("/settle"),
		body: map[string]any{"outcome": "accepted", "claim_key": contract.ClaimKey}, status: http.StatusOK,
		answer: approval("EXECUTED", map[string]any{"decided_at": when(exampleDecided)}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			ap, err := c.Settle(ctx, exampleID, contract.ClaimKey, true)
			if err != nil {
				return err
			}
			return want("status", ap.Status, domain.StatusExecuted)
		},
	},
	{
		state: contract.StateProcessing, params: fp("v1:pact-settle-accepted"),
		desc: "a request to settle a PROCESSING approval request as accepted", method: http.MethodPost, path: reviewPath("/settle"),
		body: map[string]any{"outcome": "accepted", "claim_key": contract.ClaimKey}, status: http.StatusOK,
		answer: approval("EXECUTED", map[string]any{"decided_at": when(exampleDecided)}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			ap, err := c.Settle(ctx, exampleID, contract.ClaimKey, true)
			if err != nil {
				return err
			}
			return want("status", ap.Status, domain.StatusExecuted)
		},
	},
	{
		state: contract.StateProcessing, params: fp("v1:pact-settle-refused"),
		desc: "a request to settle a PROCESSING approval request as refused", method: http.MethodPost, path: reviewPath("/settle"),
		body: map[string]any{"outcome": "refused", "claim_key": contract.ClaimKey}, status: http.StatusOK,
		answer: approval("APPROVED", map[string]any{"decided_at": when(exampleDecided)}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			ap, err := c.Settle(ctx, exampleID, contract.ClaimKey, false)
			if err != nil {
				return err
			}
			return want("status", ap.Status, domain.StatusApproved)
		},
	},
	{
		// docs/control-plane-api.md, "Renew": the claim's owner extends the
		// PROCESSING lease while its statement is with the upstream.
		state: contract.StateProcessing, params: fp("v1:pact-renew"),
		desc: "a request to renew the lease of a PROCESSING approval request", method: http.MethodPost, path: reviewPath("/renew"),
		body: map[string]any{"claim_key": contract.ClaimKey}, status: http.StatusOK,
		answer: approval("PROCESSING", map[string]any{"decided_at": when(exampleDecided),
			"lease_expires_at": when(exampleDecided), "lease_seconds": like(60)}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			lease, err := c.Renew(ctx, exampleID, contract.ClaimKey)
			if err != nil {
				return err
			}
			return want("lease", lease, time.Minute)
		},
	},
	{
		state: contract.StateApproved, params: fp("v1:pact-settle-conflict"),
		desc: "a request to settle an approval request that is not PROCESSING", method: http.MethodPost, path: reviewPath("/settle"),
		body: map[string]any{"outcome": "accepted", "claim_key": contract.ClaimKey}, status: http.StatusConflict,
		answer: withKeys(errorBody("not_processing"), map[string]any{
			"review": approval("APPROVED", map[string]any{"decided_at": when(exampleDecided)})}),
		check: func(ctx context.Context, c *cpclient.Client) error {
			ap, err := c.Settle(ctx, exampleID, contract.ClaimKey, true)
			return errors.Join(wantErr(err, ports.ErrConflict), want("status", ap.Status, domain.StatusApproved))
		},
	},
	{
		state: contract.StateEmpty, desc: "a request for the Control Plane's info",
		method: http.MethodGet, path: matchers.S("/api/sidecars/info"), status: http.StatusOK,
		answer: map[string]any{"api_version": matchers.Integer(1), "version": like("1.2.3"), "sidecar": like(contract.SidecarName),
			"claim_keys": true},
		check: func(ctx context.Context, c *cpclient.Client) error {
			in, err := c.Info(ctx)
			if err != nil {
				return err
			}
			return errors.Join(want("api_version", in.APIVersion, 1), want("sidecar", in.Sidecar, contract.SidecarName),
				want("claim_keys", in.ClaimKeys, true), want("keeps claim keys", c.KeepsClaimKeys(), true))
		},
	},
	{
		state: contract.StateOlder, desc: "a request for the info of a Control Plane older than the Sidecar",
		method: http.MethodGet, path: matchers.S("/api/sidecars/info"), status: http.StatusOK, older: true,
		answer: map[string]any{"version": like("0.9.0")},
		check: func(ctx context.Context, c *cpclient.Client) error {
			_, err := c.Info(ctx)
			return wantErr(err, ports.ErrOlder)
		},
	},
	{
		// docs/control-plane-api.md, "Sizes": a body over the Control
		// Plane's limit is 413 too_large, a permanent refusal the Sidecar
		// denies at once, never an outage to wait out.
		state: contract.StateSmallBody, desc: "a request to file an approval request larger than the Control Plane takes",
		method: http.MethodPost, path: matchers.S("/api/sidecars/reviews"),
		body: withKeys(fileBody, map[string]any{"fingerprint": like("v1:pact-large"),
			"statement": like(largeStatement)}),
		status: http.StatusRequestEntityTooLarge, answer: errorBody("too_large"),
		check: func(ctx context.Context, c *cpclient.Client) error {
			r := fileRequest("v1:pact-large", 0)
			r.Statement = largeStatement
			_, err := c.File(ctx, r)
			if errors.Is(err, ports.ErrUnavailable) {
				return fmt.Errorf("error %v reads as an outage", err)
			}
			return wantErr(err, ports.ErrTooLarge)
		},
	},
	{
		state: contract.StateEmpty, desc: "a request with a token the Control Plane does not know",
		method: http.MethodGet, path: matchers.S("/api/sidecars/info"), token: contract.UnknownToken,
		status: http.StatusUnauthorized, answer: errorBody("unauthorized"),
		check: func(ctx context.Context, c *cpclient.Client) error {
			_, err := c.Info(ctx)
			return wantErr(err, ports.ErrUnauthorized)
		},
	},
}
