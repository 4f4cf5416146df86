package core

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

func client(t *testing.T, cp *harness.ControlPlane, sidecar string) *controlplane.Client {
	t.Helper()
	c, err := controlplane.New(controlplane.Options{URL: cp.URL, Token: controlplane.StaticToken(cp.Sidecars[sidecar])})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func file(t *testing.T, c *controlplane.Client, fp string, limit time.Duration) domain.Approval {
	t.Helper()
	f, err := c.File(context.Background(), ports.FileRequest{Fingerprint: fp, ListenerName: "billing-api",
		ApprovalRule: "billing-approvers", Statement: "DELETE /v1/invoices/42", Protocol: "http", TimeLimit: limit})
	if err != nil {
		t.Fatalf("file: %v", err)
	}
	return f.Approval
}

// Filed through the Sidecar's client, approved with the controlplane CLI,
// read back with the right decided_at; another Sidecar's token reads it as
// not found.
func TestApprovedWithCLIReadBackScopedToTheSidecar(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{Sidecars: map[string]string{"a": "token-a", "b": "token-b"}})
	ca, cb := client(t, cp, "a"), client(t, cp, "b")
	a := file(t, ca, "v1:fp-cli", 0)
	if a.Status != domain.StatusPending {
		t.Fatalf("new request status %q, want PENDING", a.Status)
	}
	before := time.Now().Add(-time.Second).Truncate(time.Second)
	out := cp.CLI(t, "approve", a.ID)
	after := time.Now().Add(time.Second)
	if !strings.Contains(out, a.ID) {
		t.Errorf("CLI output does not name the id: %q", out)
	}
	got, err := ca.Get(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != domain.StatusApproved || got.DecidedAt == nil || got.DecidedAt.Before(before) || got.DecidedAt.After(after) {
		t.Fatalf("after CLI approve: status %s decided_at %v, want APPROVED within [%v, %v]", got.Status, got.DecidedAt, before, after)
	}
	if _, err := cb.Get(context.Background(), a.ID); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("another Sidecar's token: %v, want not found", err)
	}
	// The same statement again reuses the approved request.
	if again := file(t, ca, "v1:fp-cli", 0); again.ID != a.ID {
		t.Fatalf("refiling an APPROVED fingerprint gave %s, want reuse of %s", again.ID, a.ID)
	}
	// Claimed once; the second claim loses; the next filing is a new request.
	if _, won, err := ca.Claim(context.Background(), a.ID, "v1:fp-cli", ports.SpendOnSent, ""); err != nil || !won {
		t.Fatalf("first claim: won=%v err=%v", won, err)
	}
	if st, won, err := ca.Claim(context.Background(), a.ID, "v1:fp-cli", ports.SpendOnSent, ""); err != nil || won || st.Status != domain.StatusExecuted {
		t.Fatalf("second claim: won=%v status=%s err=%v", won, st.Status, err)
	}
	if next := file(t, ca, "v1:fp-cli", 0); next.ID == a.ID {
		t.Fatal("after EXECUTED the same fingerprint must file a new request")
	}
}

// A rule with a 1 s limit reads EXPIRED after it, with expires_at; without a
// limit the JSON has no expires_at key.
func TestTimeLimitExpires(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	c := client(t, cp, "test")
	limited := file(t, c, "v1:fp-limited", time.Second)
	unlimited := file(t, c, "v1:fp-unlimited", 0)
	if limited.ExpiresAt == nil {
		t.Fatal("a request filed with a time limit has no expires_at")
	}
	time.Sleep(time.Until(*limited.ExpiresAt) + 200*time.Millisecond)
	got, err := c.Get(context.Background(), limited.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != domain.StatusExpired || got.ExpiresAt == nil {
		t.Fatalf("after its limit: status %s expires_at %v, want EXPIRED with expires_at", got.Status, got.ExpiresAt)
	}
	req, _ := http.NewRequest("GET", cp.URL+"/api/sidecars/reviews/"+unlimited.ID, nil)
	req.Header.Set("Authorization", "Bearer "+cp.Sidecars["test"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.Contains(string(body), "expires_at") {
		t.Fatalf("request without a limit: %s %s (want 200 and no expires_at key)", resp.Status, body)
	}
}
