package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
)

// stoppable serves a listener in front of the upstream's postgres database
// and returns its core, listener and a stop that cancels Serve's context
// (the supervisor's stop).
func stoppable(t *testing.T, mode app.Mode) (addr string, core *app.Core, l *app.Listener, stop func()) {
	t.Helper()
	core = app.NewCore(app.CoreOptions{Sidecar: "test", CP: fakecp.New(nil)})
	l = core.Listener(app.ListenerSettings{Name: "pg", Protocol: "postgres", Upstream: upstreamAddr(), Mode: mode,
		WaitTimeout: time.Minute, Approvals: []domain.ApprovalRule{{Name: "db-destructive", Match: destructive}}})
	if err := l.Settings().Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		New(slog.New(slog.NewTextHandler(testWriter{t}, nil))).Serve(ctx, ln, l)
	}()
	t.Cleanup(func() { cancel(); <-done; l.EndDrain() })
	return ln.Addr().String(), core, l, func() { cancel(); <-done }
}

func connectTo(t *testing.T, addr string) *pgx.Conn {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	c, err := pgx.Connect(context.Background(), fmt.Sprintf("postgres://postgres@%s:%s/postgres?sslmode=disable", host, port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// adminShutdownErr fails unless err is what a session gets when PostgreSQL
// shuts down: FATAL 57P01 (or the closed connection right after it).
func adminShutdownErr(t *testing.T, err error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want FATAL 57P01", what)
	}
	if !strings.Contains(err.Error(), "57P01") && !strings.Contains(err.Error(), "closed") && !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("%s: %v, want FATAL 57P01 or a closed connection", what, err)
	}
}

// A stopped listener closes idle sessions at once with FATAL 57P01, lets a
// statement in flight finish, lets an open transaction commit, and closes
// what is left at the drain deadline.
func TestDrain(t *testing.T) {
	addr, _, l, stop := stoppable(t, app.ModeReturn)
	ctx := context.Background()
	idle, busy, inTx, late := connectTo(t, addr), connectTo(t, addr), connectTo(t, addr), connectTo(t, addr)
	for _, c := range []*pgx.Conn{inTx, late} {
		if _, err := c.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
	}
	slow := make(chan error, 1)
	go func() { _, err := busy.Exec(ctx, "SELECT pg_sleep(0.5)"); slow <- err }()
	time.Sleep(200 * time.Millisecond) // the sleep is in flight
	stop()

	if err := <-slow; err != nil {
		t.Fatalf("the statement in flight at the stop failed: %v", err)
	}
	var one int
	err := idle.QueryRow(ctx, "SELECT 1").Scan(&one)
	pe := pgErrOrNil(err)
	if pe == nil || pe.Code != CodeAdminShutdown || pe.Severity != "FATAL" {
		t.Fatalf("idle session after the stop: %v, want FATAL 57P01", err)
	}
	if _, err := inTx.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatalf("a session inside a transaction was cut before the deadline: %v", err)
	}
	if _, err := inTx.Exec(ctx, "COMMIT"); err != nil {
		t.Fatalf("COMMIT during the drain: %v", err)
	}
	_, err = inTx.Exec(ctx, "SELECT 1")
	adminShutdownErr(t, err, "after its transaction ended")
	_, err = busy.Exec(ctx, "SELECT 1")
	adminShutdownErr(t, err, "after its statement finished")

	// The deadline: EndDrain closes a channel and the listener's drain
	// goroutine then closes what is left, so a statement sent at once may
	// still be answered; it is harmless inside the open transaction, and
	// within 5 s the session must be closed with FATAL 57P01.
	l.EndDrain()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err = late.Exec(ctx, "SELECT 1"); err != nil || time.Now().After(end) {
			break
		}
	}
	adminShutdownErr(t, err, "a transaction still open at the deadline")
}

// A statement waiting for a person when the Sidecar shuts down ends at once
// with FATAL 57P01 naming the approval; nothing ran.
func TestShutdownEndsAWait(t *testing.T) {
	addr, core, _, _ := stoppable(t, app.ModeWait)
	c := connectTo(t, addr)
	got := make(chan error, 1)
	go func() {
		_, err := c.Exec(context.Background(), "DELETE FROM pg_catalog.pg_class WHERE false")
		got <- err
	}()
	time.Sleep(300 * time.Millisecond) // filed and waiting
	core.Gate.BeginShutdown()
	var err error
	select {
	case err = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end at shutdown")
	}
	pe := pgErrOrNil(err)
	if pe == nil || pe.Code != CodeAdminShutdown || pe.Severity != "FATAL" || !strings.Contains(pe.Detail, "approval id: ") ||
		!strings.Contains(pe.Detail, "approval status: PENDING") {
		t.Fatalf("wait at shutdown: %#v, want FATAL 57P01 naming the approval", err)
	}
}

// pgErrOrNil returns err as a *pgconn.PgError (nil if it is not one).
func pgErrOrNil(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}
