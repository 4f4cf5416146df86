package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// A statement is whatever an agent sent: an http body may hold a NUL byte,
// which PostgreSQL text cannot store. Filing it must still work (the
// approver sees U+FFFD in its place), and ids or reasons that no row can
// hold (a NUL, invalid UTF-8) read as unknown ids, not as a store failure.
func TestTextThatPostgreSQLCannotStore(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		fi := in("v1:nul")
		fi.Statement, fi.ClientIdentity = "DELETE /v1/x\n\na\x00b", "ag\x00ent"
		a, _, err := s.File(ctx, "demo", fi, t0)
		if err != nil {
			t.Fatalf("file a statement with a NUL byte: %v", err)
		}
		got, err := s.Get(ctx, a.ID, t0)
		if err != nil || got.Statement != "DELETE /v1/x\n\na\uFFFDb" || got.ClientIdentity != "ag\uFFFDent" {
			t.Fatalf("read back: %q %q %v", got.Statement, got.ClientIdentity, err)
		}
		if _, reused, err := s.File(ctx, "demo", fi, t0); err != nil || !reused {
			t.Fatalf("the same statement again: reused=%v %v", reused, err)
		}
		rec, _, err := s.Decide(ctx, a.ID, domain.StatusRejected, "no\x00pe", "dev", t0)
		if err != nil || rec.RejectionReason != "no\uFFFDpe" {
			t.Fatalf("reject with a NUL in the reason: %q %v", rec.RejectionReason, err)
		}
		for _, id := range []string{"a\x00b", "\xff\xfe"} {
			if _, err := s.Read(ctx, "demo", id, t0); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Read(%q): %v, want ErrNotFound", id, err)
			}
			if _, err := s.Get(ctx, id, t0); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Get(%q): %v, want ErrNotFound", id, err)
			}
			if _, _, err := s.Claim(ctx, "demo", id, "v1:\x00", "", domain.StatusExecuted, t0); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Claim(%q): %v, want ErrNotFound", id, err)
			}
			if _, err := s.Settle(ctx, "demo", id, "", true, t0); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Settle(%q): %v, want ErrNotFound", id, err)
			}
			if _, _, err := s.Decide(ctx, id, domain.StatusApproved, "", "dev", t0); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Decide(%q): %v, want ErrNotFound", id, err)
			}
		}
	})
}
