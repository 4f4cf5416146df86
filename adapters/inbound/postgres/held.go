package postgres

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// maxAuthMessage is the longest message a client may send before it is
// logged in (PasswordMessage, SASLInitialResponse, SASLResponse, GSS
// tokens), counting the length word: PostgreSQL's own
// PG_MAX_AUTH_TOKEN_LENGTH.
const maxAuthMessage = 65535

// smallFrame is the size up to which a client message is read without
// taking from the held-payload budget (app.HeldBudget).
const smallFrame = 64 << 10

// CodeOutOfMemory is a statement refused because the Sidecar's held-payload
// budget is full or too small for it: 53200 out_of_memory (ERROR; the
// connection stays usable).
const CodeOutOfMemory = "53200"

// readClientFrame reads the client's next message and hands it to
// fromClient, bounding what it holds in memory:
//   - before login only PasswordMessage-type ('p') messages of at most
//     maxAuthMessage bytes and Terminate are read;
//   - CopyData and CopyFail, which the listener does not inspect, are
//     streamed to the upstream without being held;
//   - any other message over smallFrame takes its length from the
//     process-wide held-payload budget before it is read, and gives it back
//     once it is forwarded or denied; when the budget refuses, the message is
//     skipped unread and its unit is answered with a 53200 ErrorResponse.
func (s *session) readClientFrame() error {
	var hdr [5]byte
	if _, err := io.ReadFull(s.cr, hdr[:]); err != nil {
		return err
	}
	typ, n := hdr[0], int64(binary.BigEndian.Uint32(hdr[1:]))
	if n < 4 || n > maxMessage {
		return protoErr("message %q has an invalid length %d", typ, n)
	}
	if !s.authed.Load() {
		switch {
		case typ != 'p' && typ != 'X':
			// Nothing from a client that has not logged in is analysed, filed or
			// forwarded. Clients wait for ReadyForQuery, which the relay passes on
			// only after it set authed.
			return protoErr("message %q before authentication completed", typ)
		case n > maxAuthMessage:
			return protoErr("authentication message of %d bytes: at most %d are accepted before login, as PostgreSQL does", n, maxAuthMessage)
		}
	}
	if n > smallFrame && (typ == 'd' || typ == 'f') {
		return s.stream(hdr, n-4)
	}
	var held *app.Reservation
	if n > smallFrame {
		var err error
		// The message is not read yet: the watch sees a hang-up only once
		// what the client sent fits the reader's buffer, or a reset.
		ctx, done := analyzerkit.WhileConnected(int(1+n), s.clientWatch())
		held, err = s.l.Held().Reserve(ctx, 1+n)
		if done() {
			held.Release()
			return analyzerkit.ErrGoneUnread
		}
		if err != nil {
			return s.refuseUnread(typ, n, err)
		}
	}
	frame := make([]byte, 1+n)
	copy(frame, hdr[:])
	if _, err := io.ReadFull(s.cr, frame[5:]); err != nil {
		held.Release()
		return unexpectedEOF(err)
	}
	err := s.fromClient(typ, frame)
	if held != nil {
		s.held = append(s.held, held)
	}
	if len(s.pending) == 0 { // nothing is waiting for a Sync: every frame read was forwarded or denied
		s.releaseHeld()
	}
	return err
}

// releaseHeld gives back the budget of every message held so far.
func (s *session) releaseHeld() {
	for _, r := range s.held {
		r.Release()
	}
	clear(s.held)
	s.held = s.held[:0]
}

// stream forwards a message the listener does not inspect (CopyData,
// CopyFail) as it arrives, without holding it; while discarding until Sync
// it is skipped.
func (s *session) stream(hdr [5]byte, n int64) error {
	if s.discarding {
		_, err := io.CopyN(io.Discard, s.cr, n)
		return unexpectedEOF(err)
	}
	if _, err := s.uw.Write(hdr[:]); err != nil {
		return err
	}
	_, err := io.CopyN(s.uw, s.cr, n)
	return unexpectedEOF(err)
}

// refuseUnread skips a message of length n that the budget refused (err)
// and answers it as PostgreSQL answers a statement it has no memory for:
// a 53200 ErrorResponse for its unit (a Query or FunctionCall; in the
// extended protocol the messages up to the next Sync are then discarded),
// with the session's real transaction status after it.
func (s *session) refuseUnread(typ byte, n int64, err error) error {
	var be *app.BudgetError
	switch {
	case !errors.As(err, &be):
		return err
	case !decided(typ):
		return protoErr("message %q of %d bytes is longer than that message type can be", typ, n)
	}
	if _, err := io.CopyN(io.Discard, s.cr, n-4); err != nil {
		return unexpectedEOF(err)
	}
	s.log.Warn("postgres message refused: the held-payload budget is full", "type", string(typ), "bytes", n, "budget", be.Size)
	if s.discarding {
		return nil // after a held statement, PostgreSQL's rule: discard until Sync
	}
	e := &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: CodeOutOfMemory,
		Message: be.Error(),
		Hint:    fmt.Sprintf("The Sidecar holds at most %d bytes of statements in memory at once (limits.held_bytes).", be.Size)}
	if typ == 'Q' || typ == 'F' {
		if len(s.pending) > 0 {
			if err := s.endUnit(false, nil); err != nil {
				return err
			}
			if s.discarding {
				return nil
			}
		}
		if s.batch == nil {
			s.beginUnit()
		}
		return s.hold(e, nil, true)
	}
	s.currentBatch()
	s.pending = append(s.pending, pendingMsg{exp: &expect{}, refuse: e})
	return nil
}

// decided reports whether messages of type typ are decided by the gate
// (alone or as part of an extended-protocol unit).
func decided(typ byte) bool {
	switch typ {
	case 'Q', 'F', 'P', 'B', 'D', 'E', 'C':
		return true
	}
	return false
}
