package ports

// Metrics counts the gate's decisions. The core calls it on every
// statement, so implementations must be cheap and safe for concurrent use.
// adapters/outbound/metrics exports them to Prometheus.
type Metrics interface {
	// Statement counts one decision on a listener: allow, deny_policy,
	// deny_approval, deny_unavailable, deny_too_large, deny_uncheckable, forward_approved,
	// settle_accepted, settle_refused… (the audit event's Decision);
	// would_deny and would_hold count report-only rules' matches, besides
	// the statement's own decision.
	Statement(listener, decision string)
	// ApprovalFiled counts a new approval request on a listener; a reused
	// one is not counted.
	ApprovalFiled(listener string)
	// Claim counts a claim of an APPROVED approval on a listener: won, or
	// lost to another request.
	Claim(listener string, won bool)
}

// NoMetrics counts nothing (a Sidecar or test without metrics).
type NoMetrics struct{}

// Statement does nothing.
func (NoMetrics) Statement(string, string) {}

// ApprovalFiled does nothing.
func (NoMetrics) ApprovalFiled(string) {}

// Claim does nothing.
func (NoMetrics) Claim(string, bool) {}

// MaskingMetrics is implemented by a Metrics that also counts masking
// (docs/masking.md): the gate asks for it with a type assertion, so a
// Metrics without it counts nothing of masking.
type MaskingMetrics interface {
	// Masked counts values masked by one rule on a listener.
	Masked(listener, rule string, values int)
	// Uninspected counts values sent unread under a best_effort rule.
	Uninspected(listener string, values int)
}
