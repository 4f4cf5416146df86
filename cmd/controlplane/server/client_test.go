package server_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

func sidecarClient(t *testing.T, url, token string) *controlplane.Client {
	t.Helper()
	c, err := controlplane.New(controlplane.Options{URL: url, Token: controlplane.StaticToken(token)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTheSidecarsClientAgrees drives this Control Plane with the Sidecar's
// own client (adapters/outbound/controlplane): both sides of the contract.
func TestTheSidecarsClientAgrees(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	ctx := context.Background()
	c := sidecarClient(t, cp.URL, demo)
	in, err := c.Info(ctx)
	if err != nil || in.Sidecar != "demo" {
		t.Fatalf("info: %+v %v", in, err)
	}
	req := ports.FileRequest{Fingerprint: "v1:aa", ListenerName: "pg", ApprovalRule: "db-destructive",
		Statement: "DROP TABLE t", Protocol: "postgres", ClientIdentity: "app", TimeLimit: 30 * time.Minute}
	f, err := c.File(ctx, req)
	if err != nil || f.Reused || !f.StatusKnown || f.Approval.Status != domain.StatusPending ||
		f.Approval.ExpiresAt == nil || !f.Approval.ExpiresAt.Equal(t0.Add(30*time.Minute)) {
		t.Fatalf("file: %+v %v", f, err)
	}
	id := f.Approval.ID
	if again, _ := c.File(ctx, req); !again.Reused || again.Approval.ID != id {
		t.Fatalf("reuse: %+v", again)
	}
	if _, err := sidecarClient(t, cp.URL, other).Get(ctx, id); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("another Sidecar's get: %v", err)
	}
	if _, won, err := c.Claim(ctx, id, "v1:aa", ports.SpendOnSent, ""); won || err != nil {
		t.Fatalf("claim of a PENDING one: won=%v %v", won, err)
	}
	cp.Clock.Set(t0.Add(time.Minute))
	if a := cp.Do("POST", "/api/reviews/"+id+"/approve", approver, nil); a.Status != 200 {
		t.Fatalf("approve: %s", a.Raw)
	}
	g, err := c.Get(ctx, id)
	if err != nil || g.Status != domain.StatusApproved || g.DecidedAt == nil || !g.DecidedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("get: %+v %v", g, err)
	}
	a, won, err := c.Claim(ctx, id, "v1:aa", ports.SpendOnAccepted, "")
	if !won || err != nil || a.Status != domain.StatusProcessing {
		t.Fatalf("claim: %+v %v %v", a, won, err)
	}
	if a, err = c.Settle(ctx, id, "", true); err != nil || a.Status != domain.StatusExecuted {
		t.Fatalf("settle: %+v %v", a, err)
	}
	if _, err = c.Settle(ctx, id, "", true); !errors.Is(err, ports.ErrConflict) {
		t.Fatalf("settle twice: %v", err)
	}
	list, err := c.List(ctx, domain.StatusExecuted, 10)
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("list: %+v %v", list, err)
	}
	if _, err := sidecarClient(t, cp.URL, "wrong-token").Get(ctx, id); !errors.Is(err, ports.ErrUnauthorized) {
		t.Fatalf("wrong token: %v", err)
	}
}

// TestOlderControlPlaneAid checks that --api-version 0 (OmitAPIVersion) makes
// the Sidecar's client see an older Control Plane.
func TestOlderControlPlaneAid(t *testing.T) {
	cp := servertest.Start(t, "sqlite", func(o *server.Options) { o.OmitAPIVersion = true })
	if _, err := sidecarClient(t, cp.URL, demo).File(context.Background(), ports.FileRequest{
		Fingerprint: "v1:aa", ListenerName: "pg", ApprovalRule: "r"}); !errors.Is(err, ports.ErrOlder) {
		t.Fatalf("file on a Control Plane without the header: %v, want ErrOlder", err)
	}
}

// TestTooLargeIsReadAsTooLarge: a body over server.MaxBody is answered 413
// too_large, which the Sidecar's client reads as ports.ErrTooLarge (a
// permanent refusal), never as an outage; a request carrying the longest
// statement the gate files (app.MaxShownStatement, every byte escaped in
// JSON) is taken.
func TestTooLargeIsReadAsTooLarge(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	ctx := context.Background()
	c := sidecarClient(t, cp.URL, demo)
	req := ports.FileRequest{Fingerprint: "v1:big", ListenerName: "pg", ApprovalRule: "db-destructive",
		Statement: "DELETE FROM t WHERE id IN (" + strings.Repeat("1,", server.MaxBody/2) + "2)", Protocol: "postgres"}
	_, err := c.File(ctx, req)
	var ce *controlplane.Error
	if !errors.Is(err, ports.ErrTooLarge) || errors.Is(err, ports.ErrUnavailable) || !errors.As(err, &ce) ||
		ce.HTTPStatus != 413 || ce.Code != "too_large" {
		t.Fatalf("file of a %d-byte statement: %v, want ErrTooLarge (413 too_large)", len(req.Statement), err)
	}
	if got := controlplane.ErrKind(err); got != "too_large" {
		t.Fatalf("ErrKind = %q", got)
	}
	req.Fingerprint, req.Statement = "v1:shown", strings.Repeat("\x01", app.MaxShownStatement)
	if f, err := c.File(ctx, req); err != nil || f.Reused {
		t.Fatalf("file of the longest statement the gate files: %+v %v", f, err)
	}
}
