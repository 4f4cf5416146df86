package analyzerkit

import (
	"context"
	"fmt"
	"runtime/debug"
)

// PanicError is a panic that Guard recovered: Value is what was passed to
// panic, Stack the goroutine's stack at that point (for the log).
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("the analyzer failed on this text: %v", e.Value)
}

// Guard runs fn and returns its result, or, when fn panics, the zero value
// and a *PanicError holding the panic's value. The analyzer reports such a
// text as UNKNOWN with the error; the process lives on.
func Guard[T any](fn func() T) (out T, err error) {
	defer func() {
		if p := recover(); p != nil {
			var zero T
			out, err = zero, &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return fn(), nil
}

// Analyze is how each SQL analyzer runs one analysis of text: holding its
// share of b while it is parsed (WithBudget: when ctx ends first, the
// result is unknown of an error wrapping ErrUncheckable), with a panic
// turned into unknown of a *PanicError (Guard). hook, when not nil (tests
// only), runs first, inside both.
func Analyze[T any](ctx context.Context, b *Budget, text string, hook func(string), analyze func() T, unknown func(error) T) T {
	out, err := Guard(func() T {
		return WithBudget(ctx, b, int64(len(text)), func() T {
			if hook != nil {
				hook(text)
			}
			return analyze()
		}, unknown)
	})
	if err != nil {
		return unknown(err)
	}
	return out
}
