package postgres

import (
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// beforeRun are the SQLSTATE classes (PostgreSQL, Appendix A) of the errors
// the server raises while it parses and analyses a statement, resolves its
// names and checks its privileges, or refuses it in the session's state,
// before it executes any of it: 42 syntax error or access rule violation,
// 0A feature not supported, 25 invalid transaction state (25P02 in a failed
// transaction, 25006 read-only), 26 invalid statement name, 34 invalid
// cursor name, 3D invalid catalog name, 3F invalid schema name.
var beforeRun = []string{"42", "0A", "25", "26", "34", "3D", "3F"}

// unitError is the first ErrorResponse of a unit, as proof reads it.
type unitError struct {
	code   string
	inBody bool // raised inside a function or a trigger (Where or an internal query set)
}

// readUnitError reads an upstream ErrorResponse frame.
func readUnitError(frame []byte) unitError {
	var e pgproto3.ErrorResponse
	if e.Decode(body(frame)) != nil {
		return unitError{inBody: true} // unreadable: no proof
	}
	return unitError{code: e.Code, inBody: e.Where != "" || e.InternalQuery != ""}
}

// proof returns the proof that nothing of ts's statements ran
// (domain.NothingRan; spend_approval_on: accepted), or the zero value,
// which spends the approval. u is the unit that ended with ReadyForQuery.
//
// The proof is an ErrorResponse of the unit that came before any of ts's
// statements completed (a CommandComplete with a lasting tag), whose
// SQLSTATE class is in beforeRun, and that was not raised inside a
// function or trigger (no Where, no internal query): a function's body
// may have done something that outlives the rollback (nextval, dblink)
// before it failed. A unit whose statement completed spends even when a
// later one fails: a COMMIT in between, or a non-transactional effect,
// made it last. A unit that ended without its ReadyForQuery (the upstream
// lost) is spent when the session ends (app.Tickets).
// docs/postgres-listener.md.
func proof(u *unit, ts *ticketState) domain.NothingRan {
	if !u.failed || ts.done > 0 || u.err == nil || u.err.inBody {
		return domain.NothingRan{}
	}
	for _, c := range beforeRun {
		if strings.HasPrefix(u.err.code, c) {
			return domain.RefusedBeforeRun("ErrorResponse " + u.err.code)
		}
	}
	return domain.NothingRan{}
}

// claim records t, an approval the gate claimed for statements of this
// session, with need the Executes it covers (0 for a simple Query), and
// returns its state; the session spends it at its end if no answer settled
// it before.
func (s *session) claim(t *app.Ticket, need int) *ticketState {
	s.tickets.Add(t)
	if t != nil {
		s.unflushed = append(s.unflushed, t)
	}
	return &ticketState{t: t, need: need}
}
