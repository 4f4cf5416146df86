// Package command is the mongodb listener's analysis of a command: pure
// (no I/O, no state, safe for concurrent use), from a decoded OP_MSG
// (FromMsg) or legacy OP_QUERY against <db>.$cmd (FromQuery) to what the
// gate and the listener need (Command).
//
// One job per file:
//
//   - command.go: Command, FromMsg, FromQuery, FromExtJSON (a command
//     in Extended JSON, as `sidecar explain` reads one), Error.
//   - analyse.go: the generic fields (the first key is the command name,
//     $db as sent, lsid, txnNumber, autocommit, startTransaction,
//     maxTimeMS, ordered) and document sequences read as the fields they
//     stand for; read, the one reading of a command, used for the command
//     sent and for each command inside applyOps alike.
//   - names.go: the command table: each documented command name (matched
//     case-insensitively) to its actions, whether it writes, where its
//     target is; Actions and IsAction, the rules' vocabulary.
//   - reading.go: the analysis being built: actions, targets
//     ("db.collection", or "db") and functions in the order found.
//   - special.go: what only some commands carry: findAndModify's remove
//     and upsert, update's upserts, bulkWrite's ops and nsInfo, applyOps'
//     oplog entries, renameCollection's to, mapReduce's out, explain,
//     getMore and killCursors as continuations, hello's appName,
//     authentication steps.
//   - scan.go: the walk that finds server-side JavaScript ($where,
//     $function, $accumulator, BSON code) and the stages naming
//     collections ($out, $merge, $lookup, $graphLookup, $unionWith).
//   - effects.go: the effects (domain/effects.go) from the actions and
//     the fields that change them ($out, dropTarget, expireAfterSeconds,
//     cappedSize, system.users), with those of the commands inside
//     applyOps; unbounded.go whether a deleteMany or updateMany filter (or
//     an applyOps delete entry's) matches every document by its form
//     (UNBOUNDED).
//   - auth.go: saslStart / authenticate / speculativeAuthenticate: the
//     mechanism and the user name (SCRAM client-first "n=", RFC 5802).
//   - canonical.go: Canonicalize, the fingerprint's bytes, and the list of
//     what drivers vary on every send that it leaves out.
//   - display.go: the approver's rendering (relaxed Extended JSON, cut).
//   - extjson.go: relaxed Extended JSON without reflection, byte for byte
//     the driver's for the common types (the driver renders the rest).
//   - values.go: the flags the analysis reads (remove, upsert, multi, new,
//     ordered, autocommit, startTransaction, a delete's limit) read with
//     the types mongod's parsers give them (IDL bool and safeBool); a
//     value of a type mongod refuses is refused (*Error).
//   - iterate.go: an allocation-free walk over a document's elements.
//   - sets.go: sets and lists that stay linear on huge commands.
//
// The wire codec is the wire package; docs/mongodb-listener.md, "Wire and
// analysis", documents the vocabulary and the canonical form for
// operators.
package command
