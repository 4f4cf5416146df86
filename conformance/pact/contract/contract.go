// Package contract holds the names the Pact consumer tests and the provider
// verification share (docs/contract-testing.md): the pacticipants, the Sidecar
// tokens the pact's requests carry, the provider states with their
// parameters, and where the committed pact file lives. It has no cgo and no
// Pact dependency, so it builds without libpact_ffi.
package contract

import (
	"errors"
	"os"
	"path/filepath"
)

// The pacticipants. Each pact file is named "<consumer>-<Provider>.json".
// Consumer is the Sidecar's Control Plane client (the Sidecar API);
// CLIConsumer is the controlplane CLI, a client of the approver API, for the
// calls only a person makes (reopen).
const (
	Consumer    = "hoop-sidecar"
	CLIConsumer = "hoop-controlplane-cli"
	Provider    = "hoop-control-plane"
)

// Tokens in the pact's Authorization headers. A Control Plane under
// verification maps SidecarToken to Sidecar SidecarName and OtherToken to
// OtherSidecarName, and knows no Sidecar by UnknownToken.
const (
	SidecarToken     = "pact-sidecar-token"
	SidecarName      = "pact-sidecar"
	OtherToken       = "pact-other-sidecar-token"
	OtherSidecarName = "pact-other-sidecar"
	UnknownToken     = "not-a-sidecar-token"
	// ApproverToken is the approver token of the CLI pact's requests; a
	// Control Plane under verification maps it to approver ApproverName.
	ApproverToken = "pact-approver-token"
	ApproverName  = "pact-approver"
)

// Provider states (the pact's "given"). Unless said otherwise a state starts
// from an empty Control Plane, files the approval request it names for
// Sidecar SidecarName with the parameter ParamFingerprint and the FileDefaults
// below, and answers {"id": <its id>} so the verifier can put the id into the
// request path.
const (
	// StateEmpty: no approval request exists (answers no values).
	StateEmpty = "no approval request exists"
	// StatePending: a PENDING request, no time limit.
	StatePending = "an approval request is PENDING"
	// StateApproved: approved by an approver.
	StateApproved = "an approval request is APPROVED"
	// StateRejected: rejected with the reason in ParamReason.
	StateRejected = "an approval request is REJECTED with a reason"
	// StateRevoked: approved, then revoked by an approver before use.
	StateRevoked = "an approval request is REVOKED"
	// StateExpired: filed with a 30-minute time limit two hours ago, never
	// decided, so it reads EXPIRED with expires_at in the past.
	StateExpired = "an approval request is EXPIRED"
	// StateProcessing: approved, then claimed with spend_approval_on
	// "accepted" and claim key ClaimKey.
	StateProcessing = "an approval request is PROCESSING"
	// StateExecuted: approved, then claimed with spend_approval_on "sent"
	// and claim key ClaimKey (another replica won the claim, or this
	// attempt did and lost the answer).
	StateExecuted = "an approval request is EXECUTED"
	// StateOtherSidecar: a PENDING request of Sidecar OtherSidecarName.
	StateOtherSidecar = "an approval request of another Sidecar exists"
	// StateList: ListPending PENDING requests (fingerprints v1:list-0…),
	// one APPROVED and one REJECTED, for SidecarName; answers no values.
	StateList = "approval requests exist in several statuses"
	// StateOlder: an empty Control Plane older than the Sidecar: its answers
	// carry no X-Hoop-Api-Version header.
	StateOlder = "the Control Plane is older than the Sidecar"
	// StateSmallBody: an empty Control Plane that takes request bodies of
	// at most SmallBodyLimit bytes, so a File larger than that is answered
	// 413 too_large (docs/control-plane-api.md, "Sizes") without a 1 MiB
	// body in the pact.
	StateSmallBody = "the Control Plane takes request bodies of at most 512 bytes"
)

// ClaimKey is the claim key StateProcessing and StateExecuted were claimed
// with; OtherClaimKey is another attempt's.
const (
	ClaimKey      = "pact-claim-key"
	OtherClaimKey = "pact-other-claim-key"
)

// SmallBodyLimit is StateSmallBody's body limit, in bytes.
const SmallBodyLimit = 512

// States lists every provider state, in the order above.
var States = []string{StateEmpty, StatePending, StateApproved, StateRejected, StateRevoked, StateExpired,
	StateProcessing, StateExecuted, StateOtherSidecar, StateList, StateOlder, StateSmallBody}

// Provider state parameters.
const (
	// ParamFingerprint is the fingerprint the seeded request is filed with.
	ParamFingerprint = "fingerprint"
	// ParamReason is the rejection reason of StateRejected.
	ParamReason = "reason"
	// ValueID is the key of the seeded request's id in the state's answer;
	// request paths use "${id}".
	ValueID = "id"
)

// ListPending is how many PENDING requests StateList files.
const ListPending = 3

// FileDefaults are the fields (besides the fingerprint) every seeded request
// is filed with, the same ones the consumer's File interactions send.
var FileDefaults = struct {
	ListenerName, ApprovalRule, Statement, Protocol, ClientIdentity string
}{"billing-api", "billing-approvers", "DELETE /v1/invoices/42", "http", "agent"}

// PactFileName is the committed Sidecar pact's file name under pacts/,
// CLIPactFileName the controlplane CLI's.
const (
	PactFileName    = Consumer + "-" + Provider + ".json"
	CLIPactFileName = CLIConsumer + "-" + Provider + ".json"
)

// RepoRoot returns the repository's root: the nearest folder at or above the
// working directory that holds go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("contract: no go.mod at or above the working directory")
		}
		dir = up
	}
}

// PactFile returns the committed Sidecar pact's path:
// <repo>/pacts/PactFileName.
func PactFile() (string, error) { return Committed(PactFileName) }

// Committed returns the path of the committed pact named name under pacts/.
func Committed(name string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "pacts", name), nil
}

// PactFiles returns the paths of every committed pact the provider honours:
// the Sidecar's and the controlplane CLI's.
func PactFiles() ([]string, error) {
	var out []string
	for _, name := range []string{PactFileName, CLIPactFileName} {
		p, err := Committed(name)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
