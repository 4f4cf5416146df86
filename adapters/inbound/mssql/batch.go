package mssql

import (
	"errors"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/tds"
)

// batch decides a SQLBatch (MS-TDS 2.2.6.7): its text is one unit, every
// statement analysed on its own with the session's current database; if
// any is held or denied, nothing of the batch is forwarded.
func (s *session) batch(m tds.Message) error {
	b, err := tds.DecodeSQLBatch(m.Data)
	if err != nil {
		return protoErr("SQLBatch: %v", err)
	}
	s.learnTx(b.Headers)
	if s.doomed {
		if done, err := s.afterDoomed(txWordOf(b.Text), tds.TokenDone); done {
			return err
		}
	}
	set := s.l.Settings()
	db := s.currentDB()
	res := s.p.cache.AnalyzeContext(s.ctx, b.Text, db)
	if s.ctx.Err() != nil { // the client left while the text waited: uncheckable, nothing forwarded
		return errGoneUnread
	}
	u := &unit{canonical: canonicalBatch(b.Text), render: func() string { return displayBatch(b.Text, db) }}
	s.addResult(u, res)
	if len(u.parts) == 0 { // an empty batch: the upstream answers it
		u.parts = []domain.Analysis{{}}
	}
	return s.decideAndRun(set, u, m, tds.TokenDone, exchangeOpts{}, nil)
}

// errGoneUnread ends a session that ended (its client hung up) while a text
// of it waited for its turn to be analysed: nothing of it is forwarded.
var errGoneUnread = errors.New("the session ended while its text waited to be analysed")
