package mysql

import (
	"errors"
	"io"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// smallPacket is the size up to which a client command is read without
// taking from the held-payload budget (app.HeldBudget).
const smallPacket = 64 << 10

// maxCommand is the largest command the listener reads: MySQL's own
// max_allowed_packet ceiling, 1 GiB.
const maxCommand = 1 << 30

// readCommand reads the client's next command packet (with its
// continuations). A command over smallPacket takes its length from the
// process-wide held-payload budget before it is read and gives it back
// once it is forwarded or denied; when the budget refuses, the command is
// skipped unread and answered with ERR 1041 (p is nil). LOAD DATA LOCAL
// file contents never come through here: they stream (relay.go).
func (s *session) readCommand() (p []byte, seq byte, held app.Reservations, err error) {
	for first := true; ; first = false {
		n, sq, err := wire.Header(s.cr)
		if err != nil {
			if !first {
				err = wire.UnexpectedEOF(err)
			}
			held.Release()
			return nil, 0, nil, err
		}
		if first {
			s.setBusy()
			seq, s.contd = sq, 0
			if n == 0 {
				return nil, 0, nil, wire.Errorf("empty command packet")
			}
		}
		if len(p)+n > maxCommand {
			held.Release()
			return nil, 0, nil, wire.Errorf("command longer than %d bytes", maxCommand)
		}
		if n > smallPacket || len(p) > 0 {
			// The payload is not read yet: the watch sees a hang-up only once
			// what the client sent fits the reader's buffer, or a reset.
			ctx, done := analyzerkit.WhileConnected(n, s.clientWatch())
			r, err := s.l.Held().Reserve(ctx, int64(n))
			if done() {
				r.Release()
				held.Release()
				return nil, 0, nil, analyzerkit.ErrGoneUnread
			}
			if err != nil {
				held.Release()
				return nil, 0, nil, s.refuseUnread(n, seq, err)
			}
			held = append(held, r)
		}
		start := len(p)
		p = append(p, make([]byte, n)...)
		if _, err := io.ReadFull(s.cr, p[start:]); err != nil {
			held.Release()
			return nil, 0, nil, wire.UnexpectedEOF(err)
		}
		if n < wire.MaxPayload {
			return p, seq, held, nil
		}
		s.contd++
	}
}

// refuseUnread skips the rest of a command the budget refused (err) and
// answers it with ERR 1041 ER_OUT_OF_RESOURCES; the connection stays.
func (s *session) refuseUnread(n int, seq byte, err error) error {
	var be *app.BudgetError
	if !errors.As(err, &be) {
		return err
	}
	for {
		if _, err := io.CopyN(io.Discard, s.cr, int64(n)); err != nil {
			return wire.UnexpectedEOF(err)
		}
		if n < wire.MaxPayload {
			break
		}
		s.contd++
		var err error
		if n, _, err = wire.Header(s.cr); err != nil {
			return wire.UnexpectedEOF(err)
		}
	}
	s.log.Warn("mysql command refused: the held-payload budget is full", "budget", be.Size)
	return errRefusedAnswered{s.reply(seq, errNoMemory.With("hoop sidecar: "+be.Error()+"; nothing was run"))}
}

// errRefusedAnswered is a refused command already answered: the session
// goes on unless answering failed.
type errRefusedAnswered struct{ err error }

func (e errRefusedAnswered) Error() string { return "command refused by the held-payload budget" }
