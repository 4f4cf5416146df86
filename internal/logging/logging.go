// Package logging holds what every part of the Sidecar does alike with the
// *slog.Logger it is given: today only the rule that a nil logger discards.
package logging

import "log/slog"

// OrDiscard returns log, or a logger that discards every record when log is
// nil, so constructors can take an optional logger and never check it again.
func OrDiscard(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}
