package controlplane

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hoophq/sidecar/ports"
)

// Renew posts the claim key and reads the lease's length; a 409 is a lost
// lease, and a Control Plane without the route (the standard library's
// plain 404) is older, which the Sidecar reads as "no leases".
func TestRenew(t *testing.T) {
	s := newServer(t, reply(200, with(approvalJSON("9f97", "PROCESSING"), "lease_seconds", 60, "lease_expires_at", "2026-09-29T14:03:11Z")))
	lease, err := newClient(t, s.URL, nil).Renew(context.Background(), "9f97", "key-1")
	if err != nil || lease != time.Minute {
		t.Fatalf("renew: %s %v; want 1m", lease, err)
	}
	if reqs := s.requests(); len(reqs) != 1 || reqs[0].Path != "/api/sidecars/reviews/9f97/renew" || reqs[0].Body["claim_key"] != "key-1" {
		t.Fatalf("requests %+v", reqs)
	}
	s = newServer(t, reply(409, with(apiErr("not_processing", "approval 9f97 is EXECUTED"), "review", approvalJSON("9f97", "EXECUTED"))))
	if _, err := newClient(t, s.URL, nil).Renew(context.Background(), "9f97", "key-1"); !errors.Is(err, ports.ErrConflict) {
		t.Fatalf("renew of a lapsed lease: %v; want a conflict", err)
	}
	s = newServer(t, replyRaw("1", http.StatusNotFound, "text/plain; charset=utf-8", "404 page not found\n"))
	if _, err := newClient(t, s.URL, nil).Renew(context.Background(), "9f97", "key-1"); !errors.Is(err, ports.ErrOlder) {
		t.Fatalf("renew at a Control Plane without leases: %v; want older", err)
	}
}
