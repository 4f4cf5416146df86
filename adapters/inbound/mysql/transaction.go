package mysql

import "strings"

// A denial inside a transaction fails the transaction the way MySQL's own
// ER_LOCK_DEADLOCK does (docs/mysql-listener.md, "Denials"): the
// upstream's transaction is rolled back, and until the client ends it
// (ROLLBACK or COMMIT) every statement is refused with 1213/40001, so a
// later COMMIT cannot apply part of what was sent. The session's txFailed
// records the state; COM_RESET_CONNECTION and COM_CHANGE_USER clear it.

// failTransaction fails the upstream's open transaction, if there is one,
// after a denial: it is rolled back and the session refuses what follows
// until the client ends it.
func (s *session) failTransaction() error {
	if !s.inTransaction() {
		return nil
	}
	if err := s.rollbackUpstream(); err != nil {
		return err
	}
	s.txFailed = true
	return nil
}

// rollbackUpstream rolls back the upstream's open transaction, answering
// nothing to the client.
func (s *session) rollbackUpstream() error {
	if err := s.forward(append([]byte{3}, "ROLLBACK"...), 0); err != nil {
		return err
	}
	_, err := s.relay(respResult, discard())
	return err
}

// afterFailedTx answers a statement sent after a denial inside a
// transaction: ROLLBACK ends the failed state and is then decided and
// forwarded as usual (done false), COMMIT ends it with 1213 (nothing was
// committed), anything else is refused with 1213.
func (s *session) afterFailedTx(sql string, seq byte) (done bool, err error) {
	word := strings.ToUpper(firstWord(sql))
	switch word {
	case "ROLLBACK":
		s.txFailed = false
		return false, nil
	case "COMMIT":
		s.txFailed = false
		return true, s.reply(seq, errTxAborted.With("hoop sidecar: the transaction was rolled back when a statement in it was denied; nothing was committed. Resend the whole transaction"))
	}
	return true, s.reply(seq, errTxAborted.With("hoop sidecar: a statement of this transaction was denied, so the transaction was rolled back; send ROLLBACK, then resend the whole transaction"))
}

// firstWord returns the first word of sql after spaces, comments and
// semicolons.
func firstWord(sql string) string {
	for {
		sql = strings.TrimLeft(sql, " \t\r\n;")
		switch {
		case strings.HasPrefix(sql, "/*") && !strings.HasPrefix(sql, "/*!"):
			i := strings.Index(sql, "*/")
			if i < 0 {
				return ""
			}
			sql = sql[i+2:]
		case strings.HasPrefix(sql, "--"), strings.HasPrefix(sql, "#"):
			i := strings.IndexByte(sql, '\n')
			if i < 0 {
				return ""
			}
			sql = sql[i+1:]
		default:
			end := strings.IndexFunc(sql, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') })
			if end < 0 {
				return sql
			}
			return sql[:end]
		}
	}
}
