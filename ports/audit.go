package ports

import "time"

// AuditEvent is one gate decision, written as one JSON line. It never holds
// the Sidecar token.
type AuditEvent struct {
	Time     time.Time `json:"time"`
	Listener string    `json:"listener"`
	Protocol string    `json:"protocol"`
	Client   string    `json:"client,omitempty"`
	// Identity is the client's login user where the protocol has one.
	Identity string `json:"identity,omitempty"`
	// Statement is the readable rendering of the statement (what the
	// approver sees), cut to 2 KiB. The Sidecar's own audit trail keeps it;
	// agents never read it back.
	Statement   string `json:"statement,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// Decision is one of allow, deny_policy, deny_approval, deny_unavailable, deny_too_large,
	// deny_uncheckable, deny_shutdown, client_gone, wait_canceled,
	// forward_approved, settle_accepted, settle_refused; or would_deny,
	// would_hold for a report-only rule that matched (Rule names it; the
	// statement's own decision follows on its own line); or masked,
	// mask_withheld after a result that masking rules touched.
	Decision   string `json:"decision"`
	Rule       string `json:"rule,omitempty"`
	ApprovalID string `json:"approval_id,omitempty"`
	Status     string `json:"status,omitempty"`
	Error      string `json:"error,omitempty"`
	// Masked is, on a "masked" line (written when a statement's result has
	// been sent), how many values each masking rule masked in it;
	// Uninspected how many values a best_effort rule sent unread. A result
	// a strict rule refused is a "mask_withheld" line with Error.
	Masked      map[string]int `json:"masked,omitempty"`
	Uninspected int            `json:"uninspected,omitempty"`
}

// AuditSink records decisions. Record must not block the statement for long
// and must be safe for concurrent use.
type AuditSink interface {
	Record(e AuditEvent)
}

// AllowSkipper is implemented by an AuditSink that may keep no plain
// allows (audit.skip_allows, or no audit trail at all). When SkipsAllows
// returns true the gate does not render an allowed statement's text for the
// sink (the event it records then has an empty Statement). A sink that does
// not implement it is assumed to keep allows.
type AllowSkipper interface {
	SkipsAllows() bool
}

// Clock is the time source (a fake in tests).
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }
