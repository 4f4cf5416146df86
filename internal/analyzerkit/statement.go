package analyzerkit

import "github.com/hoophq/sidecar/domain"

// Statement is what every SQL analyzer says of one statement of a text; each
// analyzer's Statement embeds it and adds what its protocol needs (the
// database a USE makes current, a PREPARE's query, …).
type Statement struct {
	// Text is the statement's own text within the analysed text; each
	// analyzer's Statement says how it is trimmed.
	Text string
	// Analysis is what rules match: Actions (statement kinds, upper case),
	// Targets (the names it acts on) and Functions (the functions it calls);
	// each analyzer's Statement says how it writes them.
	Analysis domain.Analysis
}

// Whole returns the statement of all of text with only the given actions:
// what an analyzer reports for a text it cannot read statement by
// statement (Unknown, and the kinds its keywords name).
func Whole(text string, actions []string) Statement {
	return Statement{Text: text, Analysis: domain.Analysis{Actions: actions}}
}
