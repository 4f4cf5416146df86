package mysql

import (
	"bufio"
	"errors"
	"io"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
)

// errMaskWithheld is the ERR a result withheld by a strict masking rule
// ends with, in place of its next row: ER_UNKNOWN_ERROR with the
// masking's message (masking.UnreadableError).
var errMaskWithheld = wire.ERR{Code: gm.ER_UNKNOWN_ERROR, State: "HY000"}

// startMask makes the session's row masker for the answer to statement st,
// decided with set, when a masking rule applies to it; bin: the rows come
// in the binary protocol. Call it only when set.Masking is not nil: st is
// copied to the heap.
func (s *session) startMask(set *app.ListenerSettings, st app.Statement, bin bool) {
	if plan := app.MaskPlan(set, &st); plan != nil {
		s.mask = &rowMasker{plan: plan, binary: bin}
	}
}

// endMask records what the answer's masking did (the "masked" or
// "mask_withheld" audit line) and stops masking.
func (s *session) endMask(set *app.ListenerSettings) {
	if s.mask == nil {
		return
	}
	s.l.Masked(set, s.clientAddr, s.user, s.mask.plan, s.mask.withheld)
	s.mask = nil
}

// maskRows relays the rows of a result set under the session's masker, each
// rewritten, up to the terminator (EOF, or OK with CLIENT_DEPRECATE_EOF) or
// an ERR. It reports whether more results follow. When a strict rule
// withholds the result, the client gets an ERR in place of the row and
// the rest of the answer is read and dropped, so the connection stays in
// step.
func (s *session) maskRows(dst *bufio.Writer) (bool, error) {
	m := s.mask
	w := dst
	if m.withheld != nil {
		w = discard()
	}
	for {
		n, seq, err := wire.Header(s.ur)
		if err != nil {
			return false, wire.UnexpectedEOF(err)
		}
		if n >= wire.MaxPayload { // a row of 16 MiB or more: streamed unread, or withheld
			if m.withheld == nil {
				if m.withheld = m.unreadable("a row of 16 MiB or more"); m.withheld != nil {
					if err := s.withhold(dst, seq); err != nil {
						return false, err
					}
					w = discard()
				}
			}
			if err := s.copyLong(w, n, seq); err != nil {
				return false, err
			}
			continue
		}
		if cap(m.in) < n {
			m.in = make([]byte, n)
		}
		p := m.in[:n]
		if _, err := io.ReadFull(s.ur, p); err != nil {
			return false, wire.UnexpectedEOF(err)
		}
		if n == 0 {
			return false, errMalformedRow
		}
		if p[0] == 0xff || s.terminator(p) {
			if err := writePacket(w, p, seq); err != nil {
				return false, err
			}
			if p[0] == 0xff {
				return false, nil
			}
			s.status = wire.OKOrEOFStatus(p, s.deprecateEOF())
			return s.status&gm.SERVER_MORE_RESULTS_EXISTS != 0, nil
		}
		if m.withheld != nil {
			continue
		}
		out, err := m.row(p)
		var we *wire.Error
		switch {
		case errors.As(err, &we):
			return false, err
		case err != nil:
			m.withheld = err
			if err := s.withhold(dst, seq); err != nil {
				return false, err
			}
			w = discard()
			continue
		}
		if err := writePacket(w, out, seq); err != nil {
			return false, err
		}
	}
}

// withhold sends the client the ERR of the session's withheld result as
// packet seq (the row it replaces).
func (s *session) withhold(dst *bufio.Writer, seq byte) error {
	if _, err := wire.Write(dst, seq, errMaskWithheld.With(s.mask.withheld.Error()).Encode()); err != nil {
		return err
	}
	return dst.Flush()
}

// copyLong copies a logical packet whose first physical packet (n bytes,
// sequence id seq) has its header read, with its continuations, to w.
func (s *session) copyLong(w *bufio.Writer, n int, seq byte) error {
	for {
		if err := wire.WriteHeader(w, n, seq); err != nil {
			return err
		}
		if _, err := io.CopyN(w, s.ur, int64(n)); err != nil {
			return wire.UnexpectedEOF(err)
		}
		if n < wire.MaxPayload {
			return nil
		}
		var err error
		if n, seq, err = wire.Header(s.ur); err != nil {
			return wire.UnexpectedEOF(err)
		}
	}
}

// writePacket writes payload p (under 16 MiB) as one packet seq.
func writePacket(w *bufio.Writer, p []byte, seq byte) error {
	if err := wire.WriteHeader(w, len(p), seq); err != nil {
		return err
	}
	_, err := w.Write(p)
	return err
}

// cursorMask is the masking of a COM_STMT_EXECUTE that opened a cursor:
// its rows come with the COM_STMT_FETCHes that follow, masked with the
// execution's columns and plan; the audit line is recorded once the
// cursor ends (last row sent, statement closed, reset or executed again).
type cursorMask struct {
	set  *app.ListenerSettings
	mask *rowMasker
}

// endCursorMask ends the masking of an execution of st: kept on st while
// its cursor is open, else recorded now.
func (s *session) endCursorMask(set *app.ListenerSettings, st *prepared) {
	if s.mask != nil && s.mask.withheld == nil && s.status&gm.SERVER_STATUS_CURSOR_EXISTS != 0 {
		st.cursor = &cursorMask{set: set, mask: s.mask}
		s.mask = nil
		return
	}
	s.endMask(set)
}

// closeCursor records the masking of st's cursor, if any, and forgets it.
func (s *session) closeCursor(st *prepared) {
	if st == nil || st.cursor == nil {
		return
	}
	s.mask = st.cursor.mask
	s.endMask(st.cursor.set)
	st.cursor = nil
}

// fetch relays a COM_STMT_FETCH: the rows of a cursor, masked as its
// execution was.
func (s *session) fetch(p []byte, seq byte) error {
	if len(p) < 5 {
		return wire.Errorf("COM_STMT_FETCH of %d bytes", len(p))
	}
	_, st := s.stmtID(p)
	if st == nil || st.cursor == nil {
		return s.passOne(p, seq, respRows)
	}
	if err := s.forward(p, seq); err != nil {
		return err
	}
	s.mask = st.cursor.mask
	_, err := s.relay(respRows, s.cw)
	s.mask = nil
	if err != nil || st.cursor.mask.withheld != nil || s.status&gm.SERVER_STATUS_LAST_ROW_SEND != 0 {
		s.closeCursor(st)
	}
	if err == nil {
		err = s.cw.Flush()
	}
	return err
}
