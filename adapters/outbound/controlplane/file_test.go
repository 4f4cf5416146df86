package controlplane

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

var fileReq = ports.FileRequest{Fingerprint: "v1:4f0c", ListenerName: "billing-api", ApprovalRule: "billing-approvers",
	Statement: "DELETE /v1/invoices/42", Protocol: "http", ClientIdentity: "agent", TimeLimit: 30 * time.Minute}

func TestFileNew201(t *testing.T) {
	s := newServer(t, reply(201, with(approvalJSON("9f97", "PENDING"), "reused", false)))
	var obs []observation
	c := newClient(t, s.URL, &obs)
	f, err := c.File(context.Background(), fileReq)
	if err != nil {
		t.Fatal(err)
	}
	if f.Reused || !f.StatusKnown {
		t.Fatalf("Reused=%v StatusKnown=%v, want false/true", f.Reused, f.StatusKnown)
	}
	a := f.Approval
	if a.ID != "9f97" || a.Status != domain.StatusPending || a.ListenerName != "billing-api" ||
		a.ApprovalRule != "billing-approvers" || !a.CreatedAt.Equal(mustTime("2026-09-29T14:02:11Z")) ||
		a.DecidedAt != nil || a.ExpiresAt == nil || !a.ExpiresAt.Equal(mustTime("2026-09-29T14:32:11Z")) ||
		a.RejectionReason != "" {
		t.Fatalf("approval = %+v", a)
	}
	reqs := s.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/api/sidecars/reviews" {
		t.Fatalf("request %s %s", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
		t.Fatalf("Authorization = %q", got)
	}
	if got := r.Header.Get("X-Hoop-Sidecar-Version"); got != "1.250.0" {
		t.Fatalf("X-Hoop-Sidecar-Version = %q", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Fatalf("Content-Type = %q", got)
	}
	want := map[string]any{"fingerprint": "v1:4f0c", "listener_name": "billing-api", "approval_rule": "billing-approvers",
		"statement": "DELETE /v1/invoices/42", "protocol": "http", "client_identity": "agent", "time_limit_seconds": float64(1800)}
	for k, v := range want {
		if r.Body[k] != v {
			t.Errorf("body[%s] = %v, want %v", k, r.Body[k], v)
		}
	}
	if len(obs) != 1 || obs[0].Call != "file" || obs[0].Kind != "" {
		t.Fatalf("observations %+v", obs)
	}
}

func TestFileWithoutTimeLimitOmitsIt(t *testing.T) {
	s := newServer(t, reply(201, with(approvalJSON("9f97", "PENDING"), "expires_at", deleteKey)))
	c := newClient(t, s.URL, nil)
	r := fileReq
	r.TimeLimit = 0
	f, err := c.File(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.requests()[0].Body["time_limit_seconds"]; ok {
		t.Fatal("time_limit_seconds sent without a time limit")
	}
	if f.Approval.ExpiresAt != nil {
		t.Fatalf("ExpiresAt = %v, want nil", f.Approval.ExpiresAt)
	}
}

func TestFileReused200(t *testing.T) {
	s := newServer(t, reply(200, with(approvalJSON("9f97", "APPROVED"), "reused", true, "decided_at", "2026-09-29T14:03:40Z")))
	c := newClient(t, s.URL, nil)
	f, err := c.File(context.Background(), fileReq)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Reused || !f.StatusKnown || f.Approval.Status != domain.StatusApproved {
		t.Fatalf("filed = %+v", f)
	}
	if f.Approval.DecidedAt == nil || !f.Approval.DecidedAt.Equal(mustTime("2026-09-29T14:03:40Z")) {
		t.Fatalf("DecidedAt = %v", f.Approval.DecidedAt)
	}
}

func TestFileWithoutStatus(t *testing.T) {
	for name, body := range map[string]map[string]any{
		"absent": with(approvalJSON("9f97", ""), "status", deleteKey),
		"null":   with(approvalJSON("9f97", ""), "status", nil),
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, reply(201, body))
			f, err := newClient(t, s.URL, nil).File(context.Background(), fileReq)
			if err != nil {
				t.Fatal(err)
			}
			if f.StatusKnown || f.Approval.ID != "9f97" || f.Approval.Status != "" {
				t.Fatalf("filed = %+v, want StatusKnown=false with the id", f)
			}
		})
	}
}

func TestFileErrors(t *testing.T) {
	cases := []struct {
		name  string
		reply http.HandlerFunc
		want  error
		kind  string
	}{
		{"400 invalid", reply(400, apiErr("invalid", "fingerprint is empty")), ErrRejected, "other"},
		{"401 unauthorized", reply(401, apiErr("unauthorized", "unknown token")), ports.ErrUnauthorized, "unauthorized"},
		{"500 internal", reply(500, apiErr("internal", "db down")), ports.ErrUnavailable, "unavailable"},
		{"503 no body", reply(503, nil), ports.ErrUnavailable, "unavailable"},
		{"201 without version header", replyVersion("", 201, approvalJSON("9f97", "PENDING")), ports.ErrOlder, "older"},
		{"404 html without version header, a proxy's", replyRaw("", 404, "text/html", "<html>not found</html>"), ports.ErrUnavailable, "unavailable"},
		{"404 JSON without version header", replyVersion("", 404, map[string]any{"message": "not found"}), ports.ErrOlder, "older"},
		{"413 too_large", reply(413, apiErr("too_large", "the request body is over the 1048576 bytes")), ports.ErrTooLarge, "too_large"},
		{"413 html of a proxy in front (nginx client_max_body_size)", replyRaw("", 413, "text/html", "<html>413 Request Entity Too Large</html>"), ports.ErrTooLarge, "too_large"},
		{"201 not json", reply(201, "{"), ErrBadAnswer, "other"},
		{"201 without id", reply(201, with(approvalJSON("", "PENDING"), "id", deleteKey)), ErrBadAnswer, "other"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.reply)
			var obs []observation
			_, err := newClient(t, s.URL, &obs).File(context.Background(), fileReq)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if n := len(s.requests()); n != 1 {
				t.Fatalf("%d requests, want 1 (File is never retried)", n)
			}
			if len(obs) != 1 || obs[0].Kind != tc.kind {
				t.Fatalf("observations %+v, want kind %q", obs, tc.kind)
			}
		})
	}
}
