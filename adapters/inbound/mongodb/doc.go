// Package mongodb is the mongodb listener: a MongoDB wire-protocol proxy
// that passes each client through to its own connection to the upstream
// (a mongod or mongos) and asks the gate (app.Listener.Check) about every
// command before it is forwarded. Messages are decoded by the wire
// subpackage and commands read by the command subpackage; what is
// forwarded is the client's original bytes.
//
// What lives here, one job per file:
//
//   - protocol.go: New, with Name and Serve from drain.Server (the accept loop,
//     the connection skeleton and its certificate loader, around startup),
//     what is logged of a connection that ended before its first command.
//   - drain.go: a stopped listener's sessions: closed once idle, or at the
//     drain deadline.
//   - startup.go, tls.go: TLS from the first byte towards clients (tls:,
//     with client certificates verified when tls.client_ca_file is set)
//     and towards the upstream (upstream_tls:), and the connection to the
//     upstream. The handshake itself (hello, authentication) is commands.
//   - held.go: reading one client message within the upstream's
//     maxMessageSizeBytes, and the held-payload budget (app.HeldBudget) for
//     messages over 64 KiB, with the 146 ExceededMemoryLimit refusal.
//   - session.go: one client connection: decodes each message (OP_MSG,
//     OP_QUERY commands, OP_COMPRESSED), reads hello's appName for return
//     mode and the user an authentication claims, and decides each command:
//     forward, or answer with the denial (moreToCome requests get none).
//   - wait.go: asking the gate about a command, and the hang-up watch on
//     the client connection while it waits (wait mode).
//   - relay.go: the upstream's replies back to the client, streamed unread
//     unless one needs a look: hello (maxMessageSizeBytes), authentication
//     (the user is the identity once the upstream says ok), and replies
//     that settle approvals claimed with spend_approval_on: accepted.
//   - mask.go, maskreply.go, maskrelay.go, cursors.go: masking_rules
//     (domain/masking): one result document masked by its field paths
//     (mask.go), the documents of a reply found and the reply encoded
//     again (maskreply.go), the relay of a masked reply with its audit
//     line and the refusal of one it cannot read (maskrelay.go), and the
//     cursors a masked command opened, so their getMore batches on any
//     connection are masked alike (cursors.go).
//   - transaction.go: a denial inside a transaction aborts it upstream;
//     ask, the listener's own command to the upstream.
//   - x509.go: MONGODB-X509 with tls.client_ca_file: the client's
//     certificate verified here, its authenticate answered here, and the
//     upstream login with the certificate x509_logins maps its subject to.
//   - statement.go: what the gate sees of a command (canonical bytes and
//     the approver's rendering come from the command package).
//   - spend.go: what proves that nothing of an approved command ran
//     (spend_approval_on: accepted; the rule is domain.NothingRan).
//   - errors.go: the error replies {ok: 0, errmsg, code, codeName} and
//     their codes.
//   - actions.go: the actions rules can name (command.Actions) and the
//     upstream's form, checked by `sidecar validate` (app.ActionChecker,
//     app.UpstreamChecker), as in the other listeners.
//
// Everything protocol-blind (rules, approvals, fingerprints, texts) is in
// app/ and domain/. docs/mongodb-listener.md documents the behaviour for
// operators.
package mongodb
