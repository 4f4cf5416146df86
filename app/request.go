package app

import (
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// What every listener whose requests carry named values (http headers, gRPC
// metadata) reads of a request before it asks the gate. Listeners of
// database protocols read return mode from the application name instead
// (domain.WantsReturnMode) and the identity from the login.

// Values returns every value of one named field of a request: an http
// header (http.Header.Values) or a gRPC metadata key (metadata.MD.Get).
// Names are matched case-insensitively; a missing field has no values.
type Values func(name string) []string

// WantsReturnModeHeader reports whether a request asks for return mode with
// the X-Hoop-Approval header (gRPC: x-hoop-approval metadata) set to
// "return", in any case, surrounding spaces ignored (spec, "Connect an
// agent"). It is the header form of domain.WantsReturnMode.
func WantsReturnModeHeader(get Values) bool {
	for _, v := range get(domain.Names.HeaderApprovalMode) {
		if strings.EqualFold(strings.TrimSpace(v), "return") {
			return true
		}
	}
	return false
}

// IdentityValues returns the values of the listener's identity keys
// (ListenerSettings.IdentityKeys) on a request, keyed by lowercase key, for
// Statement.IdentityValues. A key the request lacks maps to no values, so a
// request without it is another principal than one with an empty value.
// It returns nil when keys is empty (the default: no identity).
func IdentityValues(get Values, keys []string) map[string][]string {
	if len(keys) == 0 {
		return nil
	}
	out := make(map[string][]string, len(keys))
	for _, k := range keys {
		k = strings.ToLower(k)
		out[k] = get(k)
	}
	return out
}

// NeedsPayload reports whether the gate will need the payload of a
// statement with analysis a (an http body, a gRPC call's first message) on
// a listener with settings s: true when an approval rule covers a and no
// policy rule does, because only then are the statement's canonical bytes
// fingerprinted. Otherwise the adapter streams the payload to the upstream
// unread. Pass the same s to Listener.CheckWith, so that a reload between
// the two cannot pair one rule set's reading with another's decision.
func NeedsPayload(s *ListenerSettings, a domain.Analysis) bool {
	return Evaluate(s, a).Verdict == domain.VerdictApproval
}

// Evaluate applies the rules of settings s to analysis a
// (domain.Evaluate). An adapter that needs the verdict before it asks the
// gate (to decide whether to read the payload: the verdict is
// domain.VerdictApproval exactly when NeedsPayload is true) passes it back
// in Statement.Evaluation with the same s, so the rules run once per
// statement. When the rules have identities or text the verdict is
// Tentative (a bound: an approval rule may hold it, so read the payload)
// and the gate reaches it again with the statement's facts.
func Evaluate(s *ListenerSettings, a domain.Analysis) domain.Evaluation {
	return domain.Evaluate(a, s.Policies, s.Approvals)
}

// evaluateStatement applies the rules of s to st with its facts (when the
// rules ask for any): the client's identities (Identities) and the text
// the approver reads (st.text, made to render once from here on).
func evaluateStatement(s *ListenerSettings, st *Statement) domain.Evaluation {
	if !domain.DependsOnFacts(s.Policies, s.Approvals) {
		return domain.Evaluate(st.Analysis, s.Policies, s.Approvals) // exact: no rule asks for facts
	}
	return domain.EvaluateWith(st.Analysis, st.facts(s), s.Policies, s.Approvals)
}

// facts returns what rules with identities or text match of st on a
// listener with settings s: the client's identities and the text the
// approver reads, rendered at most once (memoText) and only when a rule
// asks for it.
func (st *Statement) facts(s *ListenerSettings) domain.Facts {
	st.memoText()
	render, display := st.Render, st.Display // not st itself: a plain statement stays on the stack
	return domain.Facts{Identities: Identities(s, st.Identity, st.IdentityValues), Text: func() string {
		if render != nil {
			return render()
		}
		return display
	}}
}

// Identities returns the client identity values that a rule's identities
// match (domain.Facts): the login user (identity) when there is one, then
// the values of the listener's identity_keys (s.IdentityKeys) in values,
// key by key. The database listeners' other fingerprint values (the
// current database) are not identities.
func Identities(s *ListenerSettings, identity string, values map[string][]string) []string {
	var out []string
	if identity != "" {
		out = append(out, identity)
	}
	for _, k := range s.IdentityKeys {
		out = append(out, values[k]...)
	}
	return out
}
