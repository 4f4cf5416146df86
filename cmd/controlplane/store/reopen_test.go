package store_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/cmd/controlplane/store/storetest"
	"github.com/hoophq/sidecar/domain"
)

// A REJECTED request is reused by the same statement until a person reopens
// it; reopening files a new PENDING request with the same statement and time
// limit (counted from the reopen), which the statement then finds; the
// rejected one keeps its decision. After the new one is spent, the next send
// files another.
func TestReopenFilesANewPendingRequestTheStatementFinds(t *testing.T) {
	eachKind(t, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		f := in("v1:drop")
		f.TimeLimit = 30 * time.Minute
		x, _, _ := s.File(ctx, "demo", f, t0)
		if _, _, err := s.Decide(ctx, x.ID, domain.StatusRejected, "not during the freeze", "alice", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if again, reused, _ := s.File(ctx, "demo", f, t0.Add(time.Hour)); !reused || again.ID != x.ID || again.Status != domain.StatusRejected {
			t.Fatalf("before reopen the statement must find its rejection: %+v reused=%v", again, reused)
		}

		at := t0.Add(2 * time.Hour) // past the rejected one's expires_at: the new one counts from now
		y, refused, err := s.Reopen(ctx, x.ID, "bob", at)
		if err != nil {
			t.Fatal(err)
		}
		if y.ID == x.ID || y.Status != domain.StatusPending || !y.CreatedAt.Equal(at) || y.DecidedAt != nil ||
			y.ExpiresAt == nil || !y.ExpiresAt.Equal(at.Add(30*time.Minute)) || y.RejectionReason != "" || y.DecidedBy != "" {
			t.Fatalf("the reopened request: %+v", y)
		}
		if y.ReopenedFrom != x.ID || y.ReopenedBy != "bob" || y.Sidecar != "demo" || y.Fingerprint != "v1:drop" ||
			y.Statement != x.Statement || y.ListenerName != x.ListenerName || y.ApprovalRule != x.ApprovalRule ||
			y.Protocol != x.Protocol || y.ClientIdentity != x.ClientIdentity {
			t.Fatalf("the reopened request does not carry the refused one's statement: %+v", y)
		}
		if refused.ID != x.ID || refused.Status != domain.StatusRejected || refused.ReopenedAs != y.ID {
			t.Fatalf("the refused request as returned: %+v", refused)
		}
		got, err := s.Get(ctx, x.ID, at)
		if err != nil || got.Status != domain.StatusRejected || got.RejectionReason != "not during the freeze" ||
			got.DecidedBy != "alice" || got.DecidedAt == nil || got.ReopenedAs != y.ID {
			t.Fatalf("the rejected request must keep its decision and name the new one: %+v %v", got, err)
		}
		if r, err := s.Read(ctx, "demo", y.ID, at); err != nil || r.ReopenedFrom != x.ID || r.Status != domain.StatusPending {
			t.Fatalf("the Sidecar reads the new one: %+v %v", r, err)
		}
		if _, err := s.Read(ctx, "other", y.ID, at); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the new request must stay the Sidecar's own: %v", err)
		}

		found, reused, err := s.File(ctx, "demo", f, at.Add(time.Second))
		if err != nil || !reused || found.ID != y.ID || found.Status != domain.StatusPending {
			t.Fatalf("after reopen the statement must find the new PENDING request: %+v reused=%v %v", found, reused, err)
		}
		if _, _, err := s.Decide(ctx, y.ID, domain.StatusApproved, "", "carol", at.Add(2*time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, won, err := s.Claim(ctx, "demo", y.ID, "v1:drop", "", domain.StatusExecuted, at.Add(3*time.Second)); !won || err != nil {
			t.Fatalf("claim of the reopened, approved request: won=%v %v", won, err)
		}
		z, reused, _ := s.File(ctx, "demo", f, at.Add(4*time.Second))
		if reused || z.ID == x.ID || z.ID == y.ID || z.Status != domain.StatusPending || z.ReopenedFrom != "" {
			t.Fatalf("after the reopened request ran, the next send files a new one: %+v reused=%v", z, reused)
		}
	})
}

// REVOKED is reopened too: revoked after approval and revoked while a
// Sidecar never settled it (PROCESSING).
func TestReopenRevoked(t *testing.T) {
	eachKindWith(t, noLease, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		for _, claim := range []bool{false, true} {
			fp := "v1:revoked"
			if claim {
				fp += "-processing"
			}
			x, _, _ := s.File(ctx, "demo", in(fp), t0)
			mustDecide(t, s, x.ID, domain.StatusApproved)
			if claim {
				if _, won, err := s.Claim(ctx, "demo", x.ID, fp, "", domain.StatusProcessing, t0); !won || err != nil {
					t.Fatalf("claim: %v %v", won, err)
				}
			}
			mustDecide(t, s, x.ID, domain.StatusRevoked)
			y, refused, err := s.Reopen(ctx, x.ID, "bob", t0.Add(time.Hour))
			if err != nil || y.Status != domain.StatusPending || y.ExpiresAt != nil || refused.Status != domain.StatusRevoked {
				t.Fatalf("reopen of REVOKED (claimed=%v): %+v %+v %v", claim, y, refused, err)
			}
			if found, reused, _ := s.File(ctx, "demo", in(fp), t0.Add(time.Hour)); !reused || found.ID != y.ID {
				t.Fatalf("the statement must find the reopened request, got %+v", found)
			}
		}
	})
}

// Every other status, a second reopen and an unknown id are refused, and
// nothing is filed.
func TestReopenRefusesWhatNoPersonRefused(t *testing.T) {
	eachKindWith(t, noLease, func(t *testing.T, _ string, s store.Store) {
		ctx := context.Background()
		ids := map[domain.Status]string{}
		pending, _, _ := s.File(ctx, "demo", in("v1:pending"), t0)
		ids[domain.StatusPending] = pending.ID
		approved, _, _ := s.File(ctx, "demo", in("v1:approved"), t0)
		mustDecide(t, s, approved.ID, domain.StatusApproved)
		ids[domain.StatusApproved] = approved.ID
		for fp, to := range map[string]domain.Status{"v1:processing": domain.StatusProcessing, "v1:executed": domain.StatusExecuted} {
			r, _, _ := s.File(ctx, "demo", in(fp), t0)
			mustDecide(t, s, r.ID, domain.StatusApproved)
			if _, won, err := s.Claim(ctx, "demo", r.ID, fp, "", to, t0); !won || err != nil {
				t.Fatalf("claim: %v %v", won, err)
			}
			ids[to] = r.ID
		}
		lim := in("v1:expired")
		lim.TimeLimit = time.Minute
		expired, _, _ := s.File(ctx, "demo", lim, t0)
		ids[domain.StatusExpired] = expired.ID

		later := t0.Add(time.Hour)
		for st, id := range ids {
			_, cur, err := s.Reopen(ctx, id, "bob", later)
			var ce *store.ConflictError
			if !errors.As(err, &ce) || !errors.Is(err, store.ErrConflict) || ce.Current.Status != st || cur.Status != st ||
				ce.Why != "it is "+string(st)+" (reopen needs REJECTED or REVOKED)" {
				t.Fatalf("reopen of %s: %v", st, err)
			}
		}

		rejected, _, _ := s.File(ctx, "demo", in("v1:rejected"), t0)
		mustDecide(t, s, rejected.ID, domain.StatusRejected)
		y, _, err := s.Reopen(ctx, rejected.ID, "bob", later)
		if err != nil {
			t.Fatal(err)
		}
		var ce *store.ConflictError
		if _, _, err := s.Reopen(ctx, rejected.ID, "carol", later); !errors.As(err, &ce) || ce.Why != "it was reopened already as "+y.ID {
			t.Fatalf("second reopen: %v", err)
		}
		if _, _, err := s.Reopen(ctx, "no-such-id", "bob", later); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown id: %v", err)
		}
		all, err := s.List(ctx, store.Filter{Limit: 200}, later)
		if err != nil || len(all) != len(ids)+2 {
			t.Fatalf("%d requests (%v), want %d: a refused reopen must file nothing", len(all), err, len(ids)+2)
		}
	})
}

// Twenty people reopen the same rejection at once through two replicas:
// exactly one new request is filed, every other reopen is a conflict.
func TestConcurrentReopensFileOnce(t *testing.T) {
	for _, kind := range storetest.Kinds {
		t.Run(kind, func(t *testing.T) {
			addr := storetest.Addr(t, kind)
			replicas := []store.Store{storetest.OpenAddr(t, addr), storetest.OpenAddr(t, addr)}
			ctx := context.Background()
			x, _, _ := replicas[0].File(ctx, "demo", in("v1:same"), t0)
			mustDecide(t, replicas[0], x.ID, domain.StatusRejected)
			won, lost := 0, 0
			atOnce(20, replicas, func(s store.Store) func() {
				_, _, err := s.Reopen(ctx, x.ID, "bob", t0.Add(time.Hour))
				return func() {
					switch {
					case err == nil:
						won++
					case errors.Is(err, store.ErrConflict):
						lost++
					default:
						t.Errorf("reopen: %v", err)
					}
				}
			})
			all, _ := replicas[1].List(ctx, store.Filter{Limit: 200}, t0.Add(time.Hour))
			if won != 1 || lost != 19 || len(all) != 2 {
				t.Fatalf("won %d, lost %d, %d requests; want 1, 19, 2", won, lost, len(all))
			}
		})
	}
}

// A store made by a Control Plane without reopen (no reopened_* columns)
// opens, keeps its requests, and reopens them.
func TestOpenAddsTheReopenColumnsToAnOlderTable(t *testing.T) {
	const oldTable = `CREATE TABLE hoop_approvals (
	seq %s,
	id TEXT NOT NULL UNIQUE, sidecar TEXT NOT NULL, status TEXT NOT NULL, listener_name TEXT NOT NULL,
	approval_rule TEXT NOT NULL, protocol TEXT NOT NULL DEFAULT '', fingerprint TEXT NOT NULL,
	statement TEXT NOT NULL DEFAULT '', client_identity TEXT NOT NULL DEFAULT '', created_at BIGINT NOT NULL,
	decided_at BIGINT, expires_at BIGINT, rejection_reason TEXT NOT NULL DEFAULT '',
	decided_by TEXT NOT NULL DEFAULT '', sidecar_reads BIGINT NOT NULL DEFAULT 0)`
	for _, kind := range storetest.Kinds {
		t.Run(kind, func(t *testing.T) {
			addr := storetest.Addr(t, kind)
			driver, dsn, seq, ph := "pgx", addr, "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "$1, $2"
			if kind == "sqlite" {
				driver, dsn, seq, ph = "sqlite", "file:"+strings.TrimPrefix(addr, "sqlite:"), "INTEGER PRIMARY KEY AUTOINCREMENT", "?, ?"
			}
			db, err := sql.Open(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(strings.Replace(oldTable, "%s", seq, 1)); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO hoop_approvals (id, sidecar, status, listener_name, approval_rule, fingerprint, created_at, decided_at, rejection_reason, decided_by)
				VALUES (`+ph+`, 'REJECTED', 'pg', 'db-destructive', 'v1:old', 1790000000, 1790000060, 'no', 'alice')`, "old-id", "demo"); err != nil {
				t.Fatal(err)
			}
			db.Close()

			s := storetest.OpenAddr(t, addr)
			old, err := s.Get(context.Background(), "old-id", t0)
			if err != nil || old.Status != domain.StatusRejected || old.DecidedBy != "alice" || old.ReopenedAs != "" {
				t.Fatalf("the older table's request: %+v %v", old, err)
			}
			y, _, err := s.Reopen(context.Background(), "old-id", "bob", t0)
			if err != nil || y.ReopenedFrom != "old-id" {
				t.Fatalf("reopen on the upgraded table: %+v %v", y, err)
			}
			storetest.OpenAddr(t, addr) // a second Open finds the columns and adds nothing
		})
	}
}
