package domain

// Reopenable is the reopen rule: "only a person asks again" (spec, "Status
// and next"; docs/architecture.md, "The core's rules"). A request a person refused
// (REJECTED, or REVOKED after approving) is reused by every later send of the
// same statement, so approvers see no flood. To let that statement be
// decided again, a person reopens the refused request: the Control Plane
// files a new PENDING request with the same fingerprint (and the same
// statement, listener, rule and time limit) that the refused one's later
// sends then reuse.
//
// The refused request itself does not move: REJECTED and REVOKED stay final
// (see transitions), so an agent that read `stop` for an id is never proved
// wrong, and who refused it, when and why stays on record. Reopening applies
// only to the newest request of its fingerprint; one that was reopened
// already is not reopened twice.
//
// Reopenable reports whether a request in status s (its effective status,
// expiry applied) may be reopened: REJECTED or REVOKED. PENDING, APPROVED and
// PROCESSING are still open; after EXECUTED or EXPIRED the next send files a
// new request by itself (Reusable); an unknown status is left alone.
func Reopenable(s Status) bool {
	return s == StatusRejected || s == StatusRevoked
}

// ReopenFrom lists the statuses Reopenable accepts, for error messages.
var ReopenFrom = []Status{StatusRejected, StatusRevoked}
