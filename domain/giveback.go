package domain

// NothingRan is the give-back rule of spend_approval_on: accepted (design
// rules of the core, "An approval is given back only with proof that nothing
// of the statement ran"; spec, "Status and next": PROCESSING). A claimed
// approval whose statement was forwarded is spent (EXECUTED) unless its
// listener holds a NothingRan for that statement; with one it is given back
// (APPROVED) and the agent may resend.
//
// A listener makes a NothingRan only from what its protocol can prove:
//
//   - RefusedBeforeRun: the upstream answered the statement with an error
//     that its server raises before it executes anything of the statement
//     (a parse error, an unknown name, a privilege check), and the statement
//     is one that cannot run part of itself before such an error. Which
//     errors and statements qualify is the protocol's knowledge, named in
//     its docs/<protocol>-listener.md.
//   - NotSent: the statement did not reach the upstream whole (the write to
//     the upstream failed before its last byte, or the client cancelled it
//     before it was forwarded), so the server had nothing to execute.
//
// Everything else is no proof and spends: a partial outcome (MariaDB's
// `DROP TABLE a, missing` drops a and then answers ERR 1051; a MongoDB
// writeConcernError means the write was applied), an unknown one (an answer
// the listener cannot read, an error raised while executing), a lost one
// (the upstream connection ended mid-answer, the client hung up after the
// statement was written), and a connection that ends with the approval
// still claimed. Spending an approval whose statement did not run costs a
// person a new approval; giving back one whose statement ran lets one
// approval run it twice, which the core never allows.
//
// Under spend_approval_on: sent only NotSent gives an approval back: an
// upstream that refused the statement it received spends it, as every
// answer does in that mode.
//
// The zero NothingRan proves nothing.
type NothingRan struct {
	evidence string
	unsent   bool
}

// RefusedBeforeRun returns the proof for an upstream error raised before
// execution. evidence names the server's error as the listener read it
// (e.g. "ERR 1064 (42000)", "ErrorResponse 42P01", "HTTP 403"); an empty
// evidence proves nothing.
func RefusedBeforeRun(evidence string) NothingRan {
	return NothingRan{evidence: evidence}
}

// NotSent returns the proof that the statement never reached the upstream
// whole; why says how the listener knows (e.g. "write to upstream: broken
// pipe"). An empty why proves nothing.
func NotSent(why string) NothingRan {
	if why == "" {
		return NothingRan{}
	}
	return NothingRan{evidence: "not sent: " + why, unsent: true}
}

// Unsent reports whether p is a NotSent proof: the statement never reached
// the upstream whole.
func (p NothingRan) Unsent() bool { return p.unsent }

// Proves reports whether p is a proof (it is not the zero value).
func (p NothingRan) Proves() bool { return p.evidence != "" }

// String is the evidence, for the audit trail and logs ("" for no proof).
func (p NothingRan) String() string { return p.evidence }
