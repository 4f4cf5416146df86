package postgres

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/adapters/inbound/postgres/mask"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain/masking"
)

// resultMask is the masking of one statement's answer: a simple Query (all
// its statements), or one Execute. It lives on the statement's expectation
// and is used by the relay only, under session.mu.
type resultMask struct {
	plan     *masking.Plan
	set      *app.ListenerSettings
	rows     mask.Row
	copyText bool // inside a COPY TO STDOUT in text or csv format
	// copyQuoting: the statement has a COPY TO with its own DELIMITER,
	// QUOTE or ESCAPE, whose rows the masking cannot read.
	copyQuoting bool
	copyBuf     []byte
	withheld    error // what a strict rule refused the result with
}

// maskFor returns the masking of the results of st, whose analysis is res,
// decided with set (nil when set has no masking rule or none applies).
// st's identity fields are filled for a rule that matches on them.
func (s *session) maskFor(set *app.ListenerSettings, statement *app.Statement, res analyzer.Result) *resultMask {
	if set.Masking == nil {
		return nil
	}
	mst := s.cursors.forMasking(*statement, res)
	st := &mst
	st.Identity, st.Client, st.IdentityValues = s.user, s.clientAddr, s.identityValues
	p := app.MaskPlan(set, st)
	if p == nil {
		return nil
	}
	return &resultMask{plan: p, set: set, rows: mask.Row{Plan: p}, copyQuoting: copyQuoting(res)}
}

// describeFor is the Describe of a portal the listener sends before a
// masked Execute: its RowDescription (names, types, the Bind's result
// formats) is read by the relay and not shown to the client.
func describeFor(portal string) []byte {
	return encode(&pgproto3.Describe{ObjectType: 'P', Name: portal})
}

// maskMessage masks one upstream message of the statement whose masking is
// m, under mu: it returns the frame to send (frame itself, a rewritten
// one, or nil for none). A value a strict rule cannot read withholds the
// result: the client gets an ErrorResponse in place of the message, and
// nothing more until ReadyForQuery (session.muted).
func (s *session) maskMessage(m *resultMask, typ byte, frame []byte) []byte {
	if m.withheld != nil {
		return nil
	}
	switch typ {
	case 'T':
		if !m.describe(frame) {
			return s.withhold(m, mask.ErrMalformed)
		}
	case 'D':
		m.rows.Encoding = s.clientEncoding
		out, err := m.rows.Mask(frame)
		if err != nil {
			return s.withhold(m, err)
		}
		return out
	case 'H': // CopyOutResponse: text/csv rows by entity, binary unread
		f := m.plan.Field()
		if b := body(frame); f != nil && len(b) > 0 && b[0] != 0 {
			if _, err := f.Unreadable("COPY TO STDOUT in binary format"); err != nil {
				return s.withhold(m, err)
			}
			return frame
		}
		if f != nil && m.copyQuoting {
			// The server escapes or quotes the chosen character inside
			// the data (alice\@example.com, @alice@@example.com@), so the
			// patterns would not see the value the client reads.
			if _, err := f.Unreadable("COPY TO STDOUT with its own DELIMITER, QUOTE or ESCAPE"); err != nil {
				return s.withhold(m, err)
			}
			return frame
		}
		m.copyText = f != nil
	case 'd':
		if m.copyText {
			out := mask.CopyRow(m.copyBuf, m.plan.Field(), frame)
			if len(out) > 0 && &out[0] != &frame[0] {
				m.copyBuf = out[:0]
			}
			return out
		}
	case 'c', 'C':
		m.copyText = false
		m.rows.Cols = m.rows.Cols[:0]
	}
	return frame
}

// withhold refuses the rest of m's result with err: it returns the
// ErrorResponse the client gets in place of the message, and mutes the
// upstream's answers until ReadyForQuery.
func (s *session) withhold(m *resultMask, err error) []byte {
	m.withheld = err
	s.muted = true
	return encode(&pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: CodeMaskWithheld,
		Message: err.Error(),
		Hint:    "The statement ran; its result holds a value the listener's masking rule cannot read, so it is not shown."})
}

// maskDone records what m masked once its statement's answer ended (the
// expectation is popped): the "masked" or "mask_withheld" audit line.
func (s *session) maskDone(m *resultMask) {
	s.l.Masked(m.set, s.clientAddr, s.user, m.plan, m.withheld)
}

// maskDescribed reads the answer to an expMaskDesc h: the columns of
// the Execute it precedes ('T'), or none ('n', NoData).
func (s *session) maskDescribed(h *expect, typ byte, frame []byte) {
	m := h.target.mask
	switch {
	case typ != 'T':
		m.rows.Cols = m.rows.Cols[:0]
	case !m.describe(frame):
		m.rows.Cols = nil
	}
}

// describe reads the RowDescription frame into m's columns; false when it
// does not parse.
func (m *resultMask) describe(frame []byte) bool {
	var rd pgproto3.RowDescription
	if rd.Decode(body(frame)) != nil {
		return false
	}
	m.rows.Cols = mask.Columns(m.rows.Cols, m.plan, rd.Fields)
	return true
}

// shownWhileMuted reports whether an upstream message reaches the client
// after a withheld result, before ReadyForQuery: session state
// (ParameterStatus), notices and notifications, and a CopyInResponse or
// CopyBothResponse, which wait for the client (muted, the upstream would
// wait for copy data that never comes).
func shownWhileMuted(typ byte) bool {
	switch typ {
	case 'S', 'N', 'A', 'G', 'W':
		return true
	}
	return false
}

// copyQuoting reports whether a statement of res is a COPY TO with its own
// DELIMITER, QUOTE or ESCAPE.
func copyQuoting(res analyzer.Result) bool {
	for _, st := range res.Statements {
		if st.CopyQuoting {
			return true
		}
	}
	return false
}
