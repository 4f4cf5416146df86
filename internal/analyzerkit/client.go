package analyzerkit

import (
	"context"
	"errors"
)

// ErrClientGone is the cause of a WhileConnected context that its client's
// hang-up ended.
var ErrClientGone = errors.New("the client hung up before its text was analysed")

// WhileConnected returns the context of a wait for n bytes (a text for a
// parse budget, a payload for the held-payload budget) on behalf of a
// client that watch watches (internal/hangup.Watcher's form: it calls gone
// once when the connection ends, and returns its stop). From LargeText
// bytes, what may wait for a budget, the context ends with cause
// ErrClientGone when the client hangs up; a smaller n gets
// context.Background() and no watch. done stops the watch (call it once,
// before the session reads the connection again) and reports whether the
// client left: the caller then ends the session and forwards nothing.
func WhileConnected(n int, watch func(gone func(error)) (stop func())) (ctx context.Context, done func() (gone bool)) {
	if n < LargeText {
		return context.Background(), func() bool { return false }
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := watch(func(error) { cancel(ErrClientGone) })
	return ctx, func() bool {
		stop()
		gone := context.Cause(ctx) == ErrClientGone
		cancel(nil)
		return gone
	}
}

// ErrGoneUnread ends a session whose client hung up while its text waited
// for its turn to be analysed (or its payload for the held-payload budget):
// nothing of the text is forwarded.
var ErrGoneUnread = errors.New("the client hung up while its text waited to be analysed")

// AnalyzeConnected runs analyze for a text of n bytes with the context of
// WhileConnected(n, watch). It returns analyze's result, and ErrGoneUnread
// when the client hung up meanwhile (the result is then whatever the ended
// wait gave, uncheckable: the caller ends the session and forwards nothing).
func AnalyzeConnected[R any](n int, watch func(gone func(error)) (stop func()), analyze func(context.Context) R) (R, error) {
	ctx, done := WhileConnected(n, watch)
	res := analyze(ctx)
	if done() {
		return res, ErrGoneUnread
	}
	return res, nil
}
