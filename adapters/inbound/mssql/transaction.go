package mssql

import (
	"encoding/binary"
	"regexp"
	"strings"

	"github.com/hoophq/sidecar/internal/tds"
)

// A denial inside an explicit transaction dooms the transaction, whatever
// the session's XACT_ABORT says (docs/mssql-listener.md, "Transactions"):
// the upstream's transaction stays open but the listener refuses every
// request in it with SQL Server's own error for a transaction that cannot
// be committed (3930) until the client rolls back; a COMMIT is answered
// 3930 too, after the listener has rolled the transaction back upstream
// (the client gets the ENVCHANGE that says so). So a later COMMIT can never
// apply part of what the agent sent, and statements sent after the denial
// never run outside the transaction the agent thinks it is in. This is
// SQL Server's own "doomed transaction" (XACT_STATE() = -1), applied to
// every request rather than to writes only.

// Transaction manager request types, MS-TDS 2.2.6.9.
const (
	tmBeginXact    = 5
	tmPromoteXact  = 6
	tmCommitXact   = 7
	tmRollbackXact = 8
	tmSaveXact     = 9
)

// txWords recognises a batch that only ends the transaction: ROLLBACK
// [TRAN[SACTION] | WORK] [name] or COMMIT …, optionally behind IF
// @@TRANCOUNT > 0 as drivers and ORMs send it.
var txWords = regexp.MustCompile(`(?is)^\s*(?:IF\s+@@TRANCOUNT\s*>\s*0\s+)?(ROLLBACK|COMMIT)(?:\s+(?:TRAN|TRANSACTION|WORK)(?:\s+[\w@#\[\]]+)?)?\s*;?\s*$`)

// txWordOf returns "ROLLBACK" or "COMMIT" when text only ends the
// transaction, else "".
func txWordOf(text string) string {
	m := txWords.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return strings.ToUpper(m[1])
}

// afterDoomed answers a request of a doomed transaction: ROLLBACK is
// forwarded as usual (done false), and the doomed state ends with the
// transaction (the next request finds another descriptor or none), not
// with the ROLLBACK: ROLLBACK TRAN savepoint leaves the transaction open,
// and a COMMIT after it would apply the statements before the savepoint
// that ran ahead of the denial; COMMIT is answered
// 3930 after the upstream rolled back (and stays doomed when the upstream
// did not end the transaction); anything else is refused with 3930.
func (s *session) afterDoomed(word string, doneTok byte) (done bool, err error) {
	switch word {
	case "ROLLBACK":
		return false, nil
	case "COMMIT":
		env, err := s.rollbackUpstream()
		if err != nil {
			return true, err
		}
		if s.inTx() {
			// The upstream answered the rollback without ending the
			// transaction (an error): it is still open there, so it stays
			// doomed, or a second COMMIT would commit what ran before the
			// denial.
			s.log.Warn("mssql: the upstream did not roll back a doomed transaction on COMMIT; it stays open and doomed until the client rolls back")
			e := errTxDoomed.with("hoop sidecar: a statement of this transaction was denied, so it cannot be committed, and the listener could not roll it back; roll it back (ROLLBACK TRANSACTION), then resend the whole transaction once the statement is approved")
			return true, s.writeClient(append(env, errorReply(e, doneTok, true)...))
		}
		s.doomed = false
		e := errTxDoomed.with("hoop sidecar: a statement of this transaction was denied, so it cannot be committed; it was rolled back and nothing of it was committed. Resend the whole transaction once the statement is approved")
		return true, s.writeClient(append(env, errorReply(e, doneTok, s.inTx())...))
	}
	e := errTxDoomed.with("hoop sidecar: a statement of this transaction was denied, so the transaction cannot be committed and nothing more runs in it; roll it back (ROLLBACK TRANSACTION), then resend the whole transaction once the statement is approved")
	return true, s.writeClient(errorReply(e, doneTok, true))
}

// rollbackUpstream rolls back the upstream's open transaction with the
// listener's own SQLBatch, whose answer the client does not see; it
// returns the answer's ENVCHANGE tokens (the rollback), for the client.
func (s *session) rollbackUpstream() ([]byte, error) {
	s.mu.Lock()
	desc := s.tx
	s.mu.Unlock()
	b := &tds.SQLBatch{Headers: tds.TxHeaders(desc, 1), Text: "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION"}
	resp, err := s.exchange(tds.Message{Type: tds.PacketSQLBatch, Data: b.Encode()}, exchangeOpts{discard: true})
	return resp.env, err
}

// transaction relays a transaction manager request (MS-TDS 2.2.6.9: what
// go-mssqldb's BeginTx, Commit and Rollback send). It runs no statement;
// in a doomed transaction only a rollback goes through.
func (s *session) transaction(m tds.Message) error {
	typ, ok := tmRequestType(m.Data)
	if !ok {
		return protoErr("transaction manager request too short")
	}
	if s.doomed {
		word := ""
		switch typ {
		case tmRollbackXact:
			word = "ROLLBACK"
		case tmCommitXact:
			word = "COMMIT"
		}
		if done, err := s.afterDoomed(word, tds.TokenDone); done {
			return err
		}
	}
	_, err := s.exchange(m, exchangeOpts{})
	return err
}

// tmRequestType reads the RequestType after ALL_HEADERS.
func tmRequestType(b []byte) (uint16, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n < 4 || n+2 > len(b) {
		return 0, false
	}
	return binary.LittleEndian.Uint16(b[n:]), true
}
