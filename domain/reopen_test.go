package domain_test

import (
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// Every status, written out: only a person's refusals are reopened, and each
// of them is also reused (that is why a person must reopen it), while no
// status that reopening accepts may be left by a transition.
func TestReopenable(t *testing.T) {
	want := map[domain.Status]bool{
		"PENDING": false, "APPROVED": false, "PROCESSING": false,
		"REJECTED": true, "REVOKED": true,
		"EXECUTED": false, "EXPIRED": false, "ON_HOLD": false, "": false,
	}
	for st, w := range want {
		if got := domain.Reopenable(st); got != w {
			t.Errorf("Reopenable(%q) = %v, want %v", st, got, w)
		}
		if w && !domain.Reusable(st) {
			t.Errorf("%s is reopenable but not reused: the next send would file a new request without a person", st)
		}
	}
	for _, st := range domain.ReopenFrom {
		if !domain.Reopenable(st) {
			t.Errorf("ReopenFrom lists %s, which Reopenable refuses", st)
		}
		for _, to := range domain.KnownStatuses {
			if domain.CanTransition(st, to) {
				t.Errorf("reopen files a new request; %s itself must stay final, but may move to %s", st, to)
			}
		}
	}
}
