// Package policy decides who may approve or reject an approval request of
// the reference Control Plane, and when its approvals are enough
// (docs/controlplane.md, "Approval policies").
//
// Files:
//   - policy.go: Policy and Set: which policy governs a request (the first
//     whose rule glob matches its approval_rule), how many approvals it
//     needs, whether the approvals given meet it.
//   - check.go: whether one approver may decide one request (groups,
//     forbid_self_approval, require_reason), as a *Refusal with the HTTP
//     status and code the approver API answers.
//   - decide.go: Decider, the one place the approver API and the web page
//     call to approve, reject or revoke: checks, then the store.
//
// The store keeps the approvals (store.Vote) and moves a request to APPROVED
// in one conditional update when the policy says they are enough, so two
// approvers on two replicas never lose an approval or approve twice.
package policy
