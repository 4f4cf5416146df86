package postgres

import "github.com/jackc/pgx/v5/pgproto3"

// A denied unit has an error's consequences on the upstream as well as on
// the client (docs/postgres-listener.md, "The denial"): the upstream is sent a statement
// that fails in its place, so inside a transaction block the transaction
// fails (later statements get 25P02, COMMIT rolls back) and what ran of a
// pipeline's implicit transaction is rolled back, exactly as PostgreSQL
// does after any error. The listener keeps no transaction state of its own:
// the upstream's ReadyForQuery status is the truth.

// abortSQL is sent to the upstream (as a Parse) in place of every denied
// unit: its syntax error gives the upstream the consequence of the denial's
// error. Inside a transaction block the transaction fails (ReadyForQuery
// 'E', later statements get 25P02, COMMIT rolls back), and a pipeline's
// implicit transaction rolls back what ran of it, as PostgreSQL does after
// any error; outside both it changes nothing. The client never sees that
// error; the server log shows this text as the failing statement.
const abortSQL = "HOOP SIDECAR DENIED A STATEMENT HERE: the transaction fails as after any error"

// hold answers a held unit: the denial as an ErrorResponse placed where the
// upstream's error would be, then (at a Sync) the upstream's own
// ReadyForQuery. The upstream is sent abortSQL in place of the unit, so
// the denial has an error's consequences there too: inside a transaction
// block the transaction is failed ('E'), and what ran of a pipeline's
// implicit transaction is rolled back; outside both, nothing changes ('I').
// Before a Sync, the rest of the batch is discarded until it comes.
func (s *session) hold(errResp *pgproto3.ErrorResponse, b *batch, final bool) error {
	own := b != nil && b == s.batch
	if b == nil {
		b = &batch{unit: &unit{}}
	}
	entries := []*expect{{kind: expInject, msg: encode(errResp)}, {kind: expSwallow, unit: b.unit}}
	toUpstream := [][]byte{encode(&pgproto3.Parse{Query: abortSQL})}
	if final {
		entries = append(entries, &expect{kind: expSync, unit: b.unit})
		toUpstream = append(toUpstream, encode(&pgproto3.Sync{}))
		if own {
			s.batch = nil
		}
	} else {
		s.discarding = true
		toUpstream = append(toUpstream, encode(&pgproto3.Flush{}))
	}
	s.push(entries...)
	for _, m := range toUpstream {
		if err := s.forward(m); err != nil {
			return err
		}
	}
	return s.uw.Flush()
}
