// Package app holds the Sidecar's use cases, protocol-blind: the gate that
// decides each statement (allow, deny by policy, file or reuse an approval and
// deny, or claim an approved one and forward), the approval queries used by
// the status path and the MCP server (read, wait with coalesced polling,
// list), the listener runtime that protocol adapters serve, the process's
// memory limits and held-payload budget (budget.go), the rule that a wait
// belongs to its client (clientgone.go: ErrClientGone, ErrStatementCanceled,
// Outcome.ClientGone), and the fx modules that wire them.
package app
