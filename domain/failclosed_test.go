package domain

import (
	"strings"
	"testing"
)

// The fail-closed rule, the same for every protocol (FailsClosed).
func TestFailsClosed(t *testing.T) {
	allow, policy, held := Evaluation{Verdict: VerdictAllow}, Evaluation{Verdict: VerdictPolicy}, Evaluation{Verdict: VerdictApproval}
	unread, large := Unread{Why: "x"}, Unread{Why: "x", TooLarge: true}
	for _, c := range []struct {
		name  string
		u     Unread
		ev    Evaluation
		rules bool
		want  bool
	}{
		{"read whole", Unread{}, allow, true, false},
		{"no rules: nothing could match", unread, allow, false, false},
		{"no rules, too large", large, allow, false, false},
		{"unread, no rule covers it", unread, allow, true, true},
		{"unread, a rule holds a part (or UNKNOWN)", unread, held, true, false},
		{"unread, a policy denies a part", unread, policy, true, false},
		{"too large, held", large, held, true, true},
		{"too large, policy", large, policy, true, false},
	} {
		if got := FailsClosed(c.u, c.ev, c.rules); got != c.want {
			t.Errorf("%s: FailsClosed = %v, want %v", c.name, got, c.want)
		}
	}
}

// Every kind of denial has a hint, and the uncheckable text says how to
// hold such statements only when a rule could (not for a text too large).
func TestHintsAndUncheckableText(t *testing.T) {
	for _, k := range DenialKinds() {
		if Hint(Denial{Kind: k, ApprovalID: "a1", Message: "m"}, false) == "" {
			t.Errorf("kind %d has no hint", k)
		}
	}
	const hold = "add UNKNOWN to an approval rule's actions"
	if m := UncheckableMessage("why", false); !contains(m, hold) || !contains(m, "why") {
		t.Errorf("UncheckableMessage = %q", m)
	}
	if m := UncheckableMessage("why", true); contains(m, hold) {
		t.Errorf("UncheckableMessage(too large) = %q, offers UNKNOWN", m)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
