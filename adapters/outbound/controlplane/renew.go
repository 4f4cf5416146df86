package controlplane

import (
	"context"
	"net/http"
	"time"

	"github.com/hoophq/sidecar/ports"
)

// renewBody is the body of POST /api/sidecars/reviews/{id}/renew.
type renewBody struct {
	ClaimKey string `json:"claim_key"`
}

// Renew implements ports.Renewer (POST /api/sidecars/reviews/{id}/renew):
// it extends the lease of PROCESSING request id held by the claim key names
// and returns the lease's length from "lease_seconds" (0 when the answer
// has none). A repeated renew only extends the lease again, so it is
// retried as a keyed write. Errors: ErrConflict (409 not_processing),
// ErrOlder (a Control Plane without the route), ErrNotFound,
// ErrUnavailable, ErrUnauthorized, ErrRejected, ErrBadAnswer.
func (c *Client) Renew(ctx context.Context, id string, key ports.ClaimKey) (lease time.Duration, err error) {
	c.observed("renew", func() error {
		if err = notAnID("renew", id); err != nil {
			return err
		}
		var a answer
		a, err = c.write(ctx, key, request{call: "renew", method: http.MethodPost, path: reviewPath(id, "/renew"),
			body: renewBody{ClaimKey: string(key)}})
		if err != nil {
			return err
		}
		var b struct {
			LeaseSeconds int64 `json:"lease_seconds"`
		}
		if err = decode("renew", a, &b); err != nil {
			return err
		}
		lease = time.Duration(max(b.LeaseSeconds, 0)) * time.Second
		return nil
	})
	return lease, err
}
