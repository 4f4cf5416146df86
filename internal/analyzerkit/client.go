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
