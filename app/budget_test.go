package app

import (
	"context"
	"errors"
	"testing"
)

func TestHeldBudgetReserveReleaseShrink(t *testing.T) {
	b := NewHeldBudget(100)
	r, err := b.Reserve(context.Background(), 60)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Reserve(context.Background(), 50); !errors.Is(err, ErrBudget) {
		t.Fatalf("50 bytes with 40 free: %v, want ErrBudget", err)
	}
	r.Shrink(10) // the payload was shorter than reserved
	r2, err := b.Reserve(context.Background(), 90)
	if err != nil {
		t.Fatalf("90 bytes after shrinking to 10: %v", err)
	}
	r.Release()
	r.Release() // twice is harmless
	r2.Release()
	var none *Reservation
	none.Release()
	var be *BudgetError
	if _, err := b.Reserve(context.Background(), 101); !errors.As(err, &be) || be.N != 101 || be.Size != 100 {
		t.Fatalf("more than the whole budget: %v", err)
	}
	if r, err := b.Reserve(context.Background(), 100); err != nil {
		t.Fatalf("the whole budget once everything was given back: %v", err)
	} else {
		r.Release()
	}
}

// A reservation never waits past the caller's context.
func TestHeldBudgetWaitEndsWithContext(t *testing.T) {
	b := NewHeldBudget(10)
	r, _ := b.Reserve(context.Background(), 10)
	defer r.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Reserve(ctx, 1); !errors.Is(err, ErrBudget) {
		t.Fatalf("full budget, cancelled context: %v", err)
	}
}
