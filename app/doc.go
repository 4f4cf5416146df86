// Package app holds the Sidecar's use cases, protocol-blind: the gate that
// decides each statement (allow, deny by policy, file or reuse an approval and
// deny, or claim an approved one and forward), the approval queries used by
// the status path and the MCP server (read, wait with coalesced polling,
// list), the listener runtime that protocol adapters serve (the Protocol
// contract, Listener with its drain deadline), the rule that a wait belongs
// to its client (clientgone.go: ErrClientGone, ErrStatementCanceled,
// Outcome.ClientGone), the gate's shutdown (waits end, open tickets are
// settled: shutdown.go), the process's memory limits and held-payload budget
// (budget.go), and the fx modules that wire them. request.go holds what
// every listener with headers or metadata reads of a request before it asks
// the gate (return mode, identity values, whether the payload is needed) and
// the rules' facts (the client's identities), so a new listener is its
// protocol and nothing else. reportonly.go records report-only rules'
// matches (would_deny, would_hold); batch.go decides units of statements. app binds no socket and
// imports no metrics library: internal/supervisor runs the listeners,
// adapters/outbound/metrics counts.
package app
