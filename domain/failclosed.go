package domain

// Unread is what of a statement a listener could not read
// (docs/architecture.md, "Fail closed"): a text its parser refused, an
// EXECUTE or a protocol-level execute of a statement it never saw, a text
// too large or too deep to analyse. The zero value says the statement was
// read whole.
type Unread struct {
	// Why says, for the client, what could not be read; "" when nothing.
	Why string
	// TooLarge is set when the text was not analysed at all (too large or
	// too deep): no rule, UNKNOWN included, can be told what it does.
	TooLarge bool
}

// FailsClosed reports whether a statement of which u could not be read is
// refused unchecked (DeniedUncheckable), on a listener that has rules
// (any policy or approval rule) and whose rules gave ev for what could be
// read. The rule, the same for every protocol:
//   - a statement read whole is never refused as uncheckable;
//   - a listener without rules refuses nothing as uncheckable: none of its
//     rules could match the statement, read or not;
//   - a text too large or deep to analyse is refused unless a policy rule
//     denies it anyway;
//   - otherwise it is refused when no rule covers any part of it (ev is an
//     allow): a rule that covers UNKNOWN, or another part, decides it.
func FailsClosed(u Unread, ev Evaluation, hasRules bool) bool {
	switch {
	case u.Why == "" || !hasRules:
		return false
	case u.TooLarge:
		return ev.Verdict != VerdictPolicy
	}
	return ev.Verdict == VerdictAllow
}
