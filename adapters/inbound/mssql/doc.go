// Package mssql is the mssql listener: a SQL Server (TDS) proxy that logs
// each client in as itself on its own upstream connection and asks the gate
// (app.Listener.CheckWith) about every SQLBatch and RPC before it is
// forwarded. Results are never decoded whole: the upstream's packets are
// copied as they come, and only the tokens that change the session are
// read; under a masking rule each row is read and rewritten, one at a
// time. The TDS codec is internal/tds (written from [MS-TDS]; no Go
// library implements the server side).
//
// What lives here, one job per file:
//
//   - protocol.go: New, Name from drain.Server, Serve (drain.Server's;
//     warms the T-SQL parser in the background), what a connection that
//     ended during login is told.
//   - drain.go: a stopped listener's sessions: closed once idle, or at the
//     drain deadline, with ERROR 6005.
//   - startup.go: the login: PRELOGIN both ways, LOGIN7 relayed as the
//     client sent it (the Sidecar holds no password), Windows/Kerberos/Entra
//     and Always Encrypted logins refused, the upstream's LOGINACK/ENVCHANGE
//     relayed and its FEATUREEXTACK kept (how its tokens are laid out).
//   - tls.go: encryption on both legs (internal/tds/tdstls): the client
//     leg as a SQL Server set to "off" with the listener's certificate or a
//     self-signed fallback, the upstream leg per upstream_tls.
//   - frame.go: reading packets, re-packetizing a request, protocol errors.
//   - session.go: one client connection after login: its three goroutines
//     (reader, decider, relay), the request states, exchange (forward a
//     request, wait for its answer).
//   - attention.go: the reader: requests to the decider one at a time,
//     Attention by request state, hang-up while a statement waits.
//   - held.go: reading a request whole, with the held-payload budget
//     (app.HeldBudget) past 64 KiB and the ERROR 701 refusal.
//   - batch.go: SQLBatch (every statement of its text is one unit).
//   - rpc.go: RPC: sp_executesql, sp_prepexec, sp_execute (prepared handles
//     and their text), sp_prepare/sp_unprepare, cursors, named procedures.
//   - transaction.go: a denial inside a transaction dooms it (3930 until
//     ROLLBACK; COMMIT rolls back), transaction manager requests.
//   - wait.go: a unit's decision (UNKNOWN is Unread: the gate fails it
//     closed), asking the gate (app.Listener.Decide; an Attention ends a
//     wait through the session's app.WaitHandle),
//     denials.
//   - relay.go: the upstream's answers back to the client packet by packet,
//     ENVCHANGE (database, transaction, packet size), ERROR/DONE for
//     spend_approval_on: accepted, DONE(ATTN), RETURNVALUE handles; long
//     rows walked, not held (tds.RowWalker); an answer that breaks MS-TDS
//     closes the connection (ERROR 50000/127).
//   - relaymask.go: the relay of an answer under a masking plan: its
//     tokens rewritten (mask.go) and sent again in packets of the
//     negotiated size.
//   - mask.go: the masker: COLMETADATA's columns as masking fields, ROW
//     and NBCROW values masked (a changed row goes as an NBCROW),
//     RETURNVALUE, a withheld result (ERROR 50000/128).
//   - maskvalue.go, codepage.go: one value by its type: text decoded
//     (UTF-16, the collation's code page) and encoded back, numbers
//     rendered to find a card number, NULL or Unreadable otherwise.
//   - statement.go: the canonical bytes and the approver's rendering of a
//     batch and of an RPC (text plus typed parameter values).
//   - errors.go: ERROR tokens, their numbers, states and classes.
//   - actions.go: the actions rules can name (the analyzer's vocabulary),
//     checked by `sidecar validate` (app.ActionChecker).
//
// The T-SQL grammar is in the analyzer subpackage; everything
// protocol-blind (rules, approvals, fingerprints, texts) is in app/ and
// domain/. docs/mssql-listener.md documents the behaviour for operators.
package mssql
