package controlplane

import (
	"context"
	"testing"

	"github.com/hoophq/sidecar/ports"
)

// FINDING (HIGH: a statement runs without a spent approval, when a Control
// Plane, or anything answering with its headers, answers a claim 2xx with
// a readable approval that does not say the claim won). Claim reports
// won=true for ANY 2xx whose body has an "id": it reads neither "claimed",
// nor whether the status is the one the claim moves to (EXECUTED for sent,
// PROCESSING for accepted), nor whether the id is the one claimed. The gate
// then forwards the statement (forwardClaimed does not look either). A
// Control Plane that answers a lost claim "200 {claimed: false, review...}"
// (the field is in both answers of the contract, an easy implementer's
// mistake), one that answers a revoked approval 200 with its state, or a
// stale/misrouted answer for another request, each makes the Sidecar run a
// statement whose approval was not spent by this claim - possibly revoked,
// possibly spent by another attempt already (runs twice).
func TestBreakClaimWonOnlyWhenTheAnswerSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spend ports.SpendOn
		body  map[string]any
	}{
		{"200 claimed false, still APPROVED", ports.SpendOnSent, with(approvalJSON("9f97", "APPROVED"), "claimed", false)},
		{"200 claimed false, REVOKED", ports.SpendOnSent, with(approvalJSON("9f97", "REVOKED"), "claimed", false)},
		{"200 EXECUTED by another attempt, claimed false", ports.SpendOnSent, with(approvalJSON("9f97", "EXECUTED"), "claimed", false)},
		{"200 without claimed, REJECTED", ports.SpendOnSent, approvalJSON("9f97", "REJECTED")},
		{"200 EXECUTED for accepted (not PROCESSING)", ports.SpendOnAccepted, with(approvalJSON("9f97", "EXECUTED"), "claimed", true)},
		{"200 for another request", ports.SpendOnSent, with(approvalJSON("other", "EXECUTED"), "claimed", true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, reply(200, tc.body))
			a, won, err := newClient(t, s.URL, nil).Claim(context.Background(), "9f97", "v1:4f0c", tc.spend, "key-1")
			if won {
				t.Fatalf("claim answered %v: won=true (%+v, err %v); the gate forwards the statement", tc.body, a, err)
			}
		})
	}
}
