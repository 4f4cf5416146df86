// Package postgres is the postgres listener: a PostgreSQL wire-protocol
// proxy (github.com/jackc/pgx/v5/pgproto3) that passes each client through
// to its upstream server and asks the gate (app.Listener.Check) about every
// statement before it is forwarded.
//
// What lives here, one job per file:
//
//   - protocol.go: New, with Name and Serve from drain.Server (the accept loop,
//     the connection skeleton and its certificate loader, around startup),
//     what is logged of a connection that ended during startup.
//   - drain.go: a stopped listener's sessions: closed once idle, or at the
//     drain deadline, with FATAL 57P01 admin_shutdown.
//   - startup.go, tls.go: SSLRequest / GSSENCRequest / CancelRequest /
//     direct TLS, the StartupMessage, and the connection to the upstream.
//   - cancel.go: routing a CancelRequest to the upstream backend it names.
//   - frame.go: reading and writing raw protocol messages, through the
//     connection buffers of internal/connbuf (a buffer is held only while
//     bytes are in it: an idle session holds none).
//   - held.go: what a client message may cost in memory: the 65,535-byte
//     cap before login, COPY data streamed unheld, the held-payload budget
//     (app.HeldBudget) for larger messages and the 53200 refusal.
//   - session.go: one client connection: reads its messages and decides
//     them unit by unit (query.go: the simple protocol and FunctionCall;
//     extended.go and batch.go: Parse/Bind/Describe/Execute/Close up to
//     Sync or Flush, and denials; transaction.go: a denial fails the
//     upstream's transaction as an error does). Each unit reads the
//     listener's settings once.
//   - wait.go: asking the gate about a unit (app.Listener.Decide) with
//     what only PostgreSQL knows: the NoticeResponse that says why it
//     waits, the hang-up watch on the client connection, FATAL 57P01 after
//     a wait ended by shutdown; a CancelRequest ends a wait through the
//     session's app.WaitHandle.
//   - relay.go: the upstream's answers back to the client, in order, with
//     denials placed where the upstream's error would be, the transaction
//     status, SCRAM -PLUS stripping, and settling approvals claimed with
//     spend_approval_on: accepted.
//   - mask.go: masking a statement's result under the listener's masking
//     rules (app.MaskPlan): the plan on the statement's expectation, the
//     listener's own Describe before a masked Execute, the 22000 refusal
//     of a result a strict rule cannot read, the masked audit line; the
//     values themselves are rewritten by the mask subpackage.
//   - names.go: the session's prepared statements and portals as the
//     upstream has them (a change counts once the upstream confirms it).
//   - settings.go: the session settings the analysis depends on
//     (standard_conforming_strings, client_encoding).
//   - statement.go: the canonical bytes and the approver's rendering of an
//     extended-protocol statement (query text plus bound parameters).
//   - spend.go: what proves that nothing of an approved statement ran
//     (spend_approval_on: accepted; the rule is domain.NothingRan), and the
//     session's claimed tickets, spent when it ends.
//   - errors.go: ErrorResponse texts and the SQLSTATE codes.
//   - actions.go: the actions rules can name (the analyzer's vocabulary and
//     FUNCTION_CALL), checked by `sidecar validate` (app.ActionChecker).
//
// Everything protocol-blind (rules, approvals, fingerprints, texts) is in
// app/ and domain/; SQL classification is in the analyzer subpackage.
// docs/postgres-listener.md documents the behaviour for operators.
package postgres
