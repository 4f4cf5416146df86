package app

import (
	"context"
	"sync"

	"github.com/hoophq/sidecar/domain"
)

// The gate call of a database listener (docs/architecture.md, "a wait
// belongs to its client"): Listener.Decide owns the statement's cancellable
// context, the session's interrupt handle (WaitHandle), the hang-up watch
// while the statement waits, and what follows a wait ended by shutdown. A
// listener passes only what its protocol knows, in a Hold.

// Hold is what a listener knows about holding one of its statements in wait
// mode. A session builds one Hold for its whole life and passes it to every
// Decide; every field may be nil.
type Hold struct {
	// Handle is the session's interrupt handle: what ends a wait from
	// outside the statement's own reader (a PostgreSQL CancelRequest, a
	// MySQL KILL QUERY, a TDS Attention, the connection's end).
	Handle *WaitHandle
	// Watch starts watching the client connection as the statement begins
	// to wait; the watch calls gone, once, when the client hangs up (the wait
	// then ends with ErrClientGone). stop ends the watch and returns once the
	// connection is the session's again (internal/hangup.Watch).
	Watch func(gone func(err error)) (stop func())
	// OnWait tells the client, or the log, why the statement hangs
	// (Statement.OnWait): the approval id and the listener's name. It must
	// not block.
	OnWait func(approvalID, listener string)
	// Pending, when set, is asked once the handle is armed for a cause that
	// already ended this statement's wait before it began (a TDS Attention
	// that came while the request was being read); nil for none.
	Pending func() error
	// OnShutdown ends the session after a wait that the Sidecar's shutdown
	// ended (a DeniedShutdown denial, d): the session answers d and then
	// closes, as its server does when it shuts down.
	OnShutdown func(d *domain.Denial)
}

// Decide asks the gate about st with settings s, read once by the caller
// for the statement, on behalf of a database listener's session described
// by h (nil: a statement that cannot be interrupted and a client that is not
// watched). A statement the rules allow outright takes the fast path
// (CheckAllowed) and builds nothing of a wait. Otherwise the statement's
// context is armed on h.Handle, so an Interrupt or Close ends its wait
// (Outcome.Canceled or Outcome.ClientGone); as the wait begins h.OnWait is
// told and h.Watch started, and it is stopped before Decide returns; after
// a shutdown denial (domain.DeniedShutdown) h.OnShutdown is called. The
// Outcome is Gate.Check's.
func (l *Listener) Decide(s *ListenerSettings, st Statement, h *Hold) Outcome {
	if l.CheckAllowed(s, &st) {
		return Outcome{Forward: true}
	}
	if h == nil {
		h = &Hold{}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	if h.Handle != nil {
		h.Handle.arm(cancel)
		defer h.Handle.disarm()
	}
	if h.Pending != nil {
		if cause := h.Pending(); cause != nil {
			cancel(cause)
		}
	}
	var stop func()
	st.OnWait = func(id string) {
		if h.OnWait != nil {
			h.OnWait(id, s.Name)
		}
		if h.Watch != nil {
			stop = h.Watch(func(error) { cancel(ErrClientGone) })
		}
	}
	out := l.gate.Check(ctx, s, st)
	if stop != nil {
		stop()
	}
	if out.Denial != nil && out.Denial.Kind == domain.DeniedShutdown && h.OnShutdown != nil {
		h.OnShutdown(out.Denial)
	}
	return out
}

// WaitHandle is a session's handle on the wait of its current statement,
// for what ends it from outside the statement's own reader. The zero value
// is ready; it is safe for concurrent use. An Interrupt with no statement
// waiting does nothing; a Close is kept and ends every later wait at once,
// so a connection that ended just before a statement began to wait never
// leaves that statement waiting.
type WaitHandle struct {
	mu     sync.Mutex
	cancel context.CancelCauseFunc // the deciding statement's, nil between statements
	closed bool
}

// Interrupt ends the wait of the statement being decided, if any, with
// cause (ErrStatementCanceled: the client cancelled it and is still
// connected; ErrClientGone: it left). It reports whether a statement was
// being decided.
func (h *WaitHandle) Interrupt(cause error) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cancel == nil {
		return false
	}
	h.cancel(cause)
	return true
}

// Close ends the wait of the statement being decided, if any, and of every
// later one at once, with ErrClientGone: the session's connection ended.
func (h *WaitHandle) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.cancel != nil {
		h.cancel(ErrClientGone)
	}
}

func (h *WaitHandle) arm(cancel context.CancelCauseFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cancel = cancel
	if h.closed {
		cancel(ErrClientGone)
	}
}

func (h *WaitHandle) disarm() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cancel = nil
}
