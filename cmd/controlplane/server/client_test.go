package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hoophq/sidecar/adapters/outbound/controlplane"
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
	if _, won, err := c.Claim(ctx, id, "v1:aa", ports.SpendOnSent); won || err != nil {
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
	a, won, err := c.Claim(ctx, id, "v1:aa", ports.SpendOnAccepted)
	if !won || err != nil || a.Status != domain.StatusProcessing {
		t.Fatalf("claim: %+v %v %v", a, won, err)
	}
	if a, err = c.Settle(ctx, id, true); err != nil || a.Status != domain.StatusExecuted {
		t.Fatalf("settle: %+v %v", a, err)
	}
	if _, err = c.Settle(ctx, id, true); !errors.Is(err, ports.ErrConflict) {
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
