package domain_test

import (
	"errors"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// legal is the state machine of domain/status.go, written out independently.
var legal = map[[2]domain.Status]bool{
	{"PENDING", "APPROVED"}:    true,
	{"PENDING", "REJECTED"}:    true,
	{"PENDING", "EXPIRED"}:     true,
	{"APPROVED", "EXECUTED"}:   true,
	{"APPROVED", "PROCESSING"}: true,
	{"APPROVED", "REVOKED"}:    true,
	{"APPROVED", "EXPIRED"}:    true,
	{"PROCESSING", "EXECUTED"}: true,
	{"PROCESSING", "APPROVED"}: true,
	{"PROCESSING", "REVOKED"}:  true,
}

// Every one of the 7x7 pairs (and moves from and to an unknown status): the
// legal ones succeed, every other one is a *TransitionError naming both ends.
func TestEveryTransition(t *testing.T) {
	all := append(append([]domain.Status{}, domain.KnownStatuses...), "ON_HOLD")
	nLegal, nIllegal := 0, 0
	for _, from := range all {
		for _, to := range all {
			got, err := domain.Transition(from, to)
			if legal[[2]domain.Status{from, to}] {
				nLegal++
				if err != nil || got != to || !domain.CanTransition(from, to) {
					t.Errorf("%s → %s: got %q, %v; want legal", from, to, got, err)
				}
				continue
			}
			nIllegal++
			var te *domain.TransitionError
			if !errors.As(err, &te) || te.From != from || te.To != to {
				t.Errorf("%s → %s: err = %v, want *TransitionError", from, to, err)
				continue
			}
			if got != from || domain.CanTransition(from, to) {
				t.Errorf("%s → %s: illegal move returned %q (want %q unchanged)", from, to, got, from)
			}
			if want := "illegal approval transition " + string(from) + " → " + string(to); err.Error() != want {
				t.Errorf("message %q, want %q", err.Error(), want)
			}
		}
	}
	if nLegal != 10 || nIllegal != 8*8-10 {
		t.Fatalf("checked %d legal and %d illegal pairs", nLegal, nIllegal)
	}
}

// REJECTED and REVOKED stay final also under reopen (domain/reopen.go): a
// person's reopen files a new request rather than moving the refused one.
func TestFinalStatusesHaveNoExit(t *testing.T) {
	for _, from := range []domain.Status{"REJECTED", "REVOKED", "EXECUTED", "EXPIRED"} {
		for _, to := range domain.KnownStatuses {
			if domain.CanTransition(from, to) {
				t.Errorf("final %s can move to %s", from, to)
			}
		}
	}
}

// The reuse rule: open or refused by a person → reuse; EXECUTED, EXPIRED or
// unknown → file a new request.
func TestReusable(t *testing.T) {
	want := map[domain.Status]bool{
		"PENDING": true, "APPROVED": true, "PROCESSING": true, "REJECTED": true, "REVOKED": true,
		"EXECUTED": false, "EXPIRED": false, "ON_HOLD": false, "": false,
	}
	for st, w := range want {
		if got := domain.Reusable(st); got != w {
			t.Errorf("Reusable(%q) = %v, want %v", st, got, w)
		}
	}
}
