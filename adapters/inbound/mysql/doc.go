// Package mysql is the mysql listener: a MySQL/MariaDB wire-protocol proxy
// that logs each client in as itself on its own upstream connection and
// asks the gate (app.Listener.CheckAllowed, then CheckWith) about every
// statement before it is forwarded. After login, packets are relayed raw:
// results are never decoded, only the headers that say where an answer
// ends, unless a masking rule applies to the statement (mask.go).
//
// What lives here, one job per file:
//
//   - protocol.go: New, with Name and Serve from drain.Server (the accept loop,
//     the connection skeleton and its certificate loader, around startup),
//     what a connection that ended during login is told, the RSA key of
//     the caching_sha2_password conversion.
//   - drain.go: a stopped listener's sessions: closed once idle, or at the
//     drain deadline, with ERR 1053 ER_SERVER_SHUTDOWN.
//   - charset.go: the session's client character set and sql_mode, asked
//     of the upstream at login and after texts that change them, which
//     the analyzer reads every text in.
//   - curdb.go: the listener's own one-row questions to the upstream
//     (SELECT DATABASE(), the reading above).
//   - startup.go, handshake.go, tls.go: the login: the upstream's
//     HandshakeV10 passed to the client with its nonce and thread id, the
//     client's SSLRequest and HandshakeResponse41, TLS on either side.
//   - auth.go: the auth exchange relayed between client and upstream
//     (mysql_native_password, caching_sha2_password incl. full auth over TLS
//     or RSA); the Sidecar holds no database password.
//   - wire/: the packets themselves (framing, length-encoded values, the
//     handshake messages, OK status flags, ERR), with a fuzz target.
//   - held.go: what a client command may cost in memory: the held-payload
//     budget (app.HeldBudget) and the ERR 1041 refusal.
//   - session.go: one client connection: reads a command, decides it, relays
//     its answer; the command table.
//   - query.go: COM_QUERY (multi-statement texts are one unit) and its
//     denials.
//   - transaction.go: a denial inside a transaction fails it (rolled back
//     upstream, 1213 until the client ends it).
//   - prepared.go: COM_STMT_PREPARE/EXECUTE/SEND_LONG_DATA/CLOSE/RESET.
//   - changeuser.go: COM_CHANGE_USER (re-identifies), COM_PROCESS_KILL.
//   - threads.go: client-visible connection ids (the upstream's own) and
//     KILL QUERY ending a wait for approval.
//   - wait.go: asking the gate (app.Listener.Decide) with the hang-up
//     watch while a statement waits; KILL QUERY ends a wait through the
//     session's app.WaitHandle.
//   - relay.go: the upstream's answers back to the client, packet by packet,
//     the server status flags, LOAD DATA LOCAL INFILE transfers.
//   - mask.go: the row masker: a result's columns and each row's values
//     (text and binary protocol) rewritten under the statement's masking
//     plan (domain/masking); numbers that must not pass become NULL.
//   - maskrelay.go: the rows relayed through the masker one at a time, the
//     ERR that withholds a result a strict rule cannot read, cursor
//     fetches, and the "masked" audit line (app.Listener.Masked).
//   - maskcharset.go: the character set of a column's values (its
//     collation id; ids above 255 derived from MariaDB's id layout) and
//     the decoder they are read with.
//   - statement.go: the canonical bytes and the approver's rendering of a
//     COM_QUERY and of a COM_STMT_EXECUTE (text plus bound values).
//   - spend.go: what proves that nothing of a forwarded command ran
//     (spend_approval_on: accepted; the rule is domain.NothingRan).
//   - errors.go: the ERR numbers and SQLSTATEs the listener answers with.
//   - actions.go: the actions rules can name (the analyzer's vocabulary),
//     checked by `sidecar validate` (app.ActionChecker).
//
// Libraries: github.com/go-mysql-org/go-mysql v1.16.0's mysql package
// (protocol constants, RSA password encryption). Its server and client
// packages authenticate with passwords they hold; this listener holds none:
// clients log in as themselves, which needs the upstream's nonce in the
// handshake the client sees, so the listener speaks the handshake itself
// and relays the auth exchange (the server package serves as the test
// suites' caching_sha2_password stand-in upstream).
//
// The MySQL grammar is in the analyzer subpackage; everything protocol-blind
// (rules, approvals, fingerprints, texts) is in app/ and domain/.
// docs/mysql-listener.md documents the behaviour for operators.
package mysql
