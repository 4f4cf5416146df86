package controlplane

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

func TestClaimWon(t *testing.T) {
	for _, tc := range []struct {
		spend ports.SpendOn
		state string
	}{{ports.SpendOnSent, "EXECUTED"}, {ports.SpendOnAccepted, "PROCESSING"}} {
		t.Run(string(tc.spend), func(t *testing.T) {
			s := newServer(t, reply(200, with(approvalJSON("9f97", tc.state), "claimed", true)))
			a, won, err := newClient(t, s.URL, nil).Claim(context.Background(), "9f97", "v1:4f0c", tc.spend, "")
			if err != nil || !won || a.Status != domain.Status(tc.state) {
				t.Fatalf("won=%v status=%q err=%v", won, a.Status, err)
			}
			r := s.requests()[0]
			if r.Method != "POST" || r.Path != "/api/sidecars/reviews/9f97/claim" {
				t.Fatalf("request %s %s", r.Method, r.Path)
			}
			if r.Body["fingerprint"] != "v1:4f0c" || r.Body["spend_approval_on"] != string(tc.spend) {
				t.Fatalf("body %v", r.Body)
			}
		})
	}
}

func TestClaimLost(t *testing.T) {
	body := map[string]any{"code": "claim_lost", "message": "approval is EXECUTED", "claimed": false,
		"review": with(approvalJSON("9f97", "EXECUTED"), "decided_at", "2026-09-29T14:03:40Z")}
	s := newServer(t, reply(409, body))
	var obs []observation
	a, won, err := newClient(t, s.URL, &obs).Claim(context.Background(), "9f97", "v1:4f0c", ports.SpendOnSent, "")
	if err != nil {
		t.Fatalf("err = %v, want nil (a lost claim is an answer)", err)
	}
	if won || a.ID != "9f97" || a.Status != domain.StatusExecuted || a.DecidedAt == nil {
		t.Fatalf("won=%v approval=%+v", won, a)
	}
	if len(obs) != 1 || obs[0].Kind != "" {
		t.Fatalf("observations %+v", obs)
	}
}

func TestClaimErrors(t *testing.T) {
	cases := []struct {
		name  string
		reply http.HandlerFunc
		want  error
	}{
		{"404 not_found", reply(404, apiErr("not_found", "no such approval")), ports.ErrNotFound},
		{"409 claim_lost without review", reply(409, apiErr("claim_lost", "lost")), ports.ErrConflict},
		{"409 other code", reply(409, apiErr("not_processing", "x")), ports.ErrConflict},
		{"503 not retried", reply(503, apiErr("internal", "x")), ports.ErrUnavailable},
		{"500 not retried", reply(500, nil), ports.ErrUnavailable},
		{"401", reply(401, apiErr("unauthorized", "x")), ports.ErrUnauthorized},
		{"405 route missing", reply(405, "Method Not Allowed"), ports.ErrOlder},
		{"405 text without version header, a proxy's", replyRaw("", 405, "text/plain", "Method Not Allowed"), ports.ErrUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.reply, reply(200, approvalJSON("9f97", "EXECUTED")))
			_, won, err := newClient(t, s.URL, nil).Claim(context.Background(), "9f97", "v1:4f0c", ports.SpendOnSent, "")
			if !errors.Is(err, tc.want) || won {
				t.Fatalf("won=%v err=%v, want %v", won, err, tc.want)
			}
			if n := len(s.requests()); n != 1 {
				t.Fatalf("%d requests, want 1 (Claim is never retried)", n)
			}
		})
	}
}

func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		accepted bool
		outcome  string
		state    domain.Status
	}{{true, "accepted", domain.StatusExecuted}, {false, "refused", domain.StatusApproved}} {
		t.Run(tc.outcome, func(t *testing.T) {
			s := newServer(t, reply(200, approvalJSON("9f97", string(tc.state))))
			a, err := newClient(t, s.URL, nil).Settle(context.Background(), "9f97", "", tc.accepted)
			if err != nil || a.Status != tc.state {
				t.Fatalf("status=%q err=%v", a.Status, err)
			}
			r := s.requests()[0]
			if r.Method != "POST" || r.Path != "/api/sidecars/reviews/9f97/settle" || r.Body["outcome"] != tc.outcome {
				t.Fatalf("request %s %s %v", r.Method, r.Path, r.Body)
			}
		})
	}
}

func TestSettleNotProcessing(t *testing.T) {
	body := map[string]any{"code": "not_processing", "message": "approval is APPROVED",
		"review": approvalJSON("9f97", "APPROVED")}
	s := newServer(t, reply(409, body))
	var obs []observation
	a, err := newClient(t, s.URL, &obs).Settle(context.Background(), "9f97", "", true)
	if !errors.Is(err, ports.ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	if a.Status != domain.StatusApproved {
		t.Fatalf("current state %q, want APPROVED from the answer", a.Status)
	}
	if len(obs) != 1 || obs[0].Kind != "conflict" {
		t.Fatalf("observations %+v", obs)
	}
}

func TestSettleErrors(t *testing.T) {
	cases := []struct {
		name  string
		reply http.HandlerFunc
		want  error
	}{
		{"409 without review", reply(409, apiErr("not_processing", "x")), ports.ErrConflict},
		{"400 invalid", reply(400, apiErr("invalid", "outcome")), ErrRejected},
		{"404", reply(404, apiErr("not_found", "x")), ports.ErrNotFound},
		{"503 not retried", reply(503, nil), ports.ErrUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.reply, reply(200, approvalJSON("9f97", "EXECUTED")))
			_, err := newClient(t, s.URL, nil).Settle(context.Background(), "9f97", "", true)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if n := len(s.requests()); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
		})
	}
}
