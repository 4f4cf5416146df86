package app

import (
	"context"
	"fmt"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// An accepted settle that meets an unavailable Control Plane is tried again;
// a refused one is not (a retry could give back an approval claimed since).
func TestSettleRetriesOnlyAcceptedOnUnavailable(t *testing.T) {
	for _, accepted := range []bool{true, false} {
		cp := &flakySettle{CP: fakecp.New(nil), failures: 1}
		core := NewCore(CoreOptions{Sidecar: "s", CP: cp})
		tk := &Ticket{gate: core.Gate, id: "x"}
		if accepted {
			tk.Spend()
		} else {
			tk.GiveBack(domain.NotSent("test"))
		}
		want := map[bool]int{true: 2, false: 1}[accepted]
		if cp.calls != want {
			t.Errorf("accepted=%v: %d settle calls, want %d", accepted, cp.calls, want)
		}
	}
}

type flakySettle struct {
	*fakecp.CP
	failures, calls int
}

func (f *flakySettle) Settle(ctx context.Context, id string, accepted bool) (domain.Approval, error) {
	f.calls++
	if f.calls <= f.failures {
		return domain.Approval{}, fmt.Errorf("settle: %w", ports.ErrUnavailable)
	}
	return domain.Approval{ID: id}, nil
}
