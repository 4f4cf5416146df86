package provider

import (
	"context"
	"errors"
	"testing"

	cpclient "github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/conformance/pact/contract"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// The provider states set up what their names say, read back through the
// Sidecar's own client. This runs without libpact_ffi (no build tag).
func TestStatesSetUpWhatTheySay(t *testing.T) {
	p := Start(t, nil)
	client := func(tok string) *cpclient.Client {
		c, err := cpclient.New(cpclient.Options{URL: p.URL, Token: cpclient.StaticToken(tok)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	own, other := client(contract.SidecarToken), client(contract.OtherToken)
	ctx := context.Background()
	params := map[string]any{contract.ParamFingerprint: "v1:states", contract.ParamReason: "not during the freeze"}

	for state, want := range map[string]domain.Status{
		contract.StatePending: domain.StatusPending, contract.StateApproved: domain.StatusApproved,
		contract.StateRejected: domain.StatusRejected, contract.StateRevoked: domain.StatusRevoked,
		contract.StateExpired:    domain.StatusExpired,
		contract.StateProcessing: domain.StatusProcessing, contract.StateExecuted: domain.StatusExecuted,
	} {
		values, err := p.Setup(state, params)
		if err != nil {
			t.Fatal(err)
		}
		ap, err := own.Get(ctx, values[contract.ValueID].(string))
		if err != nil || ap.Status != want {
			t.Fatalf("state %q: read %s, %v; want %s", state, ap.Status, err, want)
		}
		if state == contract.StateRejected && ap.RejectionReason != "not during the freeze" {
			t.Errorf("state %q: reason %q", state, ap.RejectionReason)
		}
		if state == contract.StateExpired && (ap.ExpiresAt == nil || ap.DecidedAt == nil) {
			t.Errorf("state %q: expires_at %v decided_at %v, want both set", state, ap.ExpiresAt, ap.DecidedAt)
		}
	}

	values, err := p.Setup(contract.StateOtherSidecar, params)
	if err != nil {
		t.Fatal(err)
	}
	id := values[contract.ValueID].(string)
	if _, err := own.Get(ctx, id); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("another Sidecar's request read by this one: %v, want not found", err)
	}
	if ap, err := other.Get(ctx, id); err != nil || ap.Status != domain.StatusPending {
		t.Errorf("the other Sidecar reads its own request: %v %v", ap.Status, err)
	}

	if _, err := p.Setup(contract.StateList, nil); err != nil {
		t.Fatal(err)
	}
	all, err := own.List(ctx, "", 200)
	if err != nil || len(all) != contract.ListPending+2 {
		t.Fatalf("list state holds %d requests (%v), want %d", len(all), err, contract.ListPending+2)
	}
	pending, err := own.List(ctx, domain.StatusPending, 200)
	if err != nil || len(pending) != contract.ListPending {
		t.Fatalf("list state holds %d PENDING (%v), want %d", len(pending), err, contract.ListPending)
	}

	if _, err := p.Setup(contract.StateOlder, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := own.Info(ctx); !errors.Is(err, ports.ErrOlder) {
		t.Errorf("older state: Info error %v, want ErrOlder", err)
	}
	if _, err := p.Setup(contract.StateEmpty, nil); err != nil {
		t.Fatal(err)
	}
	if list, err := own.List(ctx, "", 200); err != nil || len(list) != 0 {
		t.Errorf("empty state: %d requests (%v), want a fresh store", len(list), err)
	}
	if _, err := own.Info(ctx); err != nil {
		t.Errorf("empty state after older: Info %v, want the API version header back", err)
	}

	if _, err := p.Setup("a state nobody wrote", nil); err == nil {
		t.Error("an unknown state was accepted")
	}
	if _, err := p.Setup(contract.StatePending, nil); err == nil {
		t.Error("a state without its fingerprint parameter was accepted")
	}
}

// Every provider state of the contract has a set-up, and no set-up is for a
// state the contract does not name.
func TestEveryContractStateHasASetUp(t *testing.T) {
	named := map[string]bool{}
	for _, s := range contract.States {
		named[s] = true
		if seeds[s] == nil {
			t.Errorf("provider state %q has no set-up in states.go", s)
		}
	}
	for s := range seeds {
		if !named[s] {
			t.Errorf("states.go sets up %q, which contract.States does not list", s)
		}
	}
}
