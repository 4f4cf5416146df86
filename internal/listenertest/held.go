package listenertest

import (
	"context"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
)

// heldWhole reports whether nothing of b is taken. It never waits (its
// context has ended), so it never delays a session's own reservation.
func heldWhole(b *app.HeldBudget) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := b.Reserve(ctx, b.Size())
	r.Release()
	return err == nil
}

// HeldTaken polls, with a 30 s bound only a hang reaches, until a session
// has taken some of the held-payload budget b (it read a payload and holds
// it); it fails t otherwise.
func HeldTaken(t testing.TB, b *app.HeldBudget) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if !heldWhole(b) {
			return
		}
	}
	t.Fatal("no session took the held-payload budget")
}

// HeldWhole polls, with a 30 s bound only a hang reaches, until nothing of
// the held-payload budget b is taken (the session that held a payload gave
// it back); it fails t otherwise.
func HeldWhole(t testing.TB, b *app.HeldBudget) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if heldWhole(b) {
			return
		}
	}
	t.Fatal("the held-payload budget was not given back: the session still waits after its client left")
}
