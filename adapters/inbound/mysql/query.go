package mysql

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
	"github.com/hoophq/sidecar/internal/hangup"
)

// query decides a COM_QUERY: its text is one unit, every statement of a
// multi-statement text analysed on its own; if any is held or denied,
// nothing of the text is forwarded.
func (s *session) query(p []byte, seq byte) error {
	sql := string(p[1:])
	if s.txFailed {
		if done, err := s.afterFailedTx(sql, seq); done {
			return err
		}
	}
	set := s.rules()
	res, err := s.analyze(sql, s.database)
	if err != nil {
		return err
	}
	db := s.database
	st := app.Statement{Canonical: canonicalQuery(sql), Render: func() string { return displayQuery(sql, db) }}
	out := s.decide(set, res, &st)
	if !out.Forward {
		return s.deny(out, seq)
	}
	// Every way out spends the approval but the two proofs that nothing ran
	// (domain.NothingRan): a later settle is a no-op.
	defer out.Ticket.Spend()
	if err := s.upstreamOpen(out.Ticket, seq); err != nil {
		return err
	}
	if err := s.forward(p, seq); err != nil {
		out.Ticket.GiveBack(domain.NotSent(err.Error()))
		return err
	}
	out.Ticket.Sent()
	if set.Masking != nil {
		s.startMask(set, st, false)
	}
	a, err := s.relay(respResult, s.cw)
	if err == nil {
		out.Ticket.GiveBack(proof(a, res))
	}
	s.endMask(set)
	switch {
	case err == nil && !a.failed:
		s.follow(res)
		err = s.followReading(sql, res, true)
		for _, x := range res.Statements {
			// A held statement has nothing running upstream: end its wait
			// here, once the upstream accepted the KILL (it refuses a user
			// another user's thread: the listener must not do more).
			if x.Kill != nil {
				s.p.threads.interrupt(s.upstreamAddr, x.Kill.ID)
			}
		}
	case err == nil:
		if err = s.followFailed(res); err == nil {
			err = s.followReading(sql, res, false)
		}
	}
	return err
}

// analyze reads sql as the upstream will: in the session's character set
// and sql_mode (charset.go) and its current database. A text large enough
// to wait for the parse budget waits only while its client is connected
// (analyzerkit.WhileConnected): when the client hangs up first, the
// analysis is uncheckable and analyzerkit.ErrGoneUnread ends the session, so nothing
// of the text is forwarded.
func (s *session) analyze(sql, db string) (analyzer.Result, error) {
	return analyzerkit.AnalyzeConnected(len(sql), s.clientWatch(), func(ctx context.Context) analyzer.Result {
		return s.p.cache.AnalyzeModeContext(ctx, sql, db, s.analysisMode())
	})
}

// clientWatch watches the client connection while the session does not
// read it (internal/hangup.Watcher).
func (s *session) clientWatch() func(gone func(error)) (stop func()) {
	return hangup.Watcher(s.cr, s.client.SetReadDeadline)
}

// follow records what a text the upstream ran changed in the session:
// the current database (USE) and its SQL-level prepared statements
// (PREPARE, DEALLOCATE).
func (s *session) follow(res analyzer.Result) {
	for _, x := range res.Statements {
		switch {
		case x.UseDB != "":
			s.database = x.UseDB
		case x.Prepare != nil:
			s.sqlPrepared[strings.ToLower(x.Prepare.Name)] = x.Prepare.Analysis
		case x.Deallocate != "":
			delete(s.sqlPrepared, strings.ToLower(x.Deallocate))
		}
	}
}

// followFailed records what a text that ended in an ERR may have changed:
// the server runs a multi-statement text until its first error, so a USE
// or PREPARE before it took effect. The current database is asked of the
// upstream; a PREPARE name carries both its old and its new analysis.
func (s *session) followFailed(res analyzer.Result) error {
	use := false
	for _, x := range res.Statements {
		switch {
		case x.UseDB != "":
			use = true
		case x.Prepare != nil:
			name := strings.ToLower(x.Prepare.Name)
			if old, ok := s.sqlPrepared[name]; ok {
				s.sqlPrepared[name] = domain.Merge(old, x.Prepare.Analysis)
			} else {
				s.sqlPrepared[name] = x.Prepare.Analysis
			}
		}
	}
	if !use {
		return nil
	}
	return s.refreshDatabase()
}

// decide asks the gate about one unit (a COM_QUERY text or a
// COM_STMT_EXECUTE) whose statements res holds; it sets st's Analysis and
// Unread to what it decided on. A text the parser refused
// (res.Err), or a statement whose SQL the listener cannot see (EXECUTE of a
// PREPARE … FROM @var, or of a name it never saw prepared: UNKNOWN), that
// no rule covers is refused unchecked by the gate: fail closed
// (domain.FailsClosed, docs/mysql-listener.md).
// An EXECUTE runs what the PREPARE before it in the same text made, else
// what the session's last PREPARE of that name made.
func (s *session) decide(set *app.ListenerSettings, res analyzer.Result, st *app.Statement) app.Outcome {
	parts := make([]domain.Analysis, len(res.Statements))
	var inText map[string]domain.Analysis // made at the first PREPARE of the text
	unknown := false
	for i, x := range res.Statements {
		parts[i] = x.Analysis
		switch {
		case x.Prepare != nil:
			if inText == nil {
				inText = map[string]domain.Analysis{}
			}
			inText[strings.ToLower(x.Prepare.Name)] = x.Prepare.Analysis
		case x.Execute != "": // EXECUTE name runs what PREPARE name made on this session
			name := strings.ToLower(x.Execute)
			ran, ok := inText[name]
			if !ok {
				ran, ok = s.sqlPrepared[name]
			}
			if !ok { // SQL the listener never saw: it may do anything
				ran = domain.UnreadRun()
			}
			parts[i] = domain.Merge(x.Analysis, ran)
			// EXECUTE alone is RUNS_CODE (the analyzer cannot see the
			// text); here the text is known: its effects are the ones.
			parts[i].Effects = ran.Effects
		}
		unknown = unknown || slices.Contains(parts[i].Actions, domain.ActionUnknown)
	}
	switch {
	case res.Err != nil:
		st.Unread = domain.Unread{Why: res.Err.Error(), TooLarge: errors.Is(res.Err, analyzer.ErrUncheckable)}
	case unknown:
		st.Unread.Why = "it runs SQL the listener cannot see (EXECUTE of a PREPARE … FROM a variable, or of a name it never saw prepared)"
	}
	st.Analysis = app.Deciding(set, parts)
	return s.check(set, *st)
}

// deny answers a command the gate did not forward with its ERR; inside a
// transaction it fails the transaction first (transaction.go).
func (s *session) deny(out app.Outcome, seq byte) error {
	if out.ClientGone {
		return app.ErrClientGone
	}
	e := errInterrupted.With("Query execution was interrupted (hoop sidecar: the wait for approval was ended by KILL QUERY; the approval request stays)")
	if !out.Canceled {
		e = denialError(out.Denial)
	}
	if err := s.failTransaction(); err != nil {
		return err
	}
	return s.reply(seq, e)
}
