package app

import (
	"context"
	"fmt"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// A settle that meets an unavailable Control Plane is tried again, a spend
// and a give-back alike, each try with the claim's key: the key keeps a
// retried give-back from touching another attempt's claim.
func TestSettleRetriesOnUnavailableWithTheClaimKey(t *testing.T) {
	for _, accepted := range []bool{true, false} {
		cp := &flakySettle{CP: fakecp.New(nil), failures: 1}
		core := NewCore(CoreOptions{Sidecar: "s", CP: cp})
		tk := &Ticket{gate: core.Gate, id: "x", key: "k-1"}
		if accepted {
			tk.Spend()
		} else {
			tk.GiveBack(domain.NotSent("test"))
		}
		if cp.calls != 2 || len(cp.keys) != 2 || cp.keys[0] != "k-1" || cp.keys[1] != "k-1" {
			t.Errorf("accepted=%v: %d settle calls with keys %q, want 2 with k-1", accepted, cp.calls, cp.keys)
		}
	}
}

type flakySettle struct {
	*fakecp.CP
	failures, calls int
	keys            []ports.ClaimKey
}

func (f *flakySettle) Settle(ctx context.Context, id string, key ports.ClaimKey, accepted bool) (domain.Approval, error) {
	f.calls++
	f.keys = append(f.keys, key)
	if f.calls <= f.failures {
		return domain.Approval{}, fmt.Errorf("settle: %w", ports.ErrUnavailable)
	}
	return domain.Approval{ID: id}, nil
}
