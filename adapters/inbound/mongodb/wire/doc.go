// Package wire is the MongoDB wire protocol codec of the mongodb listener
// (https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/):
// whole messages in, decoded structs out, and back. It does no I/O beyond
// an io.Reader, keeps no state and is safe for concurrent use. Field access
// and BSON validation come from go.mongodb.org/mongo-driver/v2 v2.10.0's
// x/mongo/driver/wiremessage and x/bsonx/bsoncore, experimental packages
// whose API may change between minor versions: go.mod pins the exact
// version, and an upgrade must re-run this package's tests and fuzzers.
//
// One message per file, Decode/Append symmetric (in the manner of
// jackc/pgx's pgproto3):
//
//   - read.go: ReadMessage, one whole message from a connection, its
//     messageLength checked against the upstream's maxMessageSizeBytes
//     (*SizeError), never a hard-coded 16 MiB.
//   - header.go: the 16-byte standard header, the opCodes handled here,
//     DefaultMaxMessageSize (48,000,000).
//   - msg.go: OP_MSG (2013): flagBits (checksumPresent with its CRC-32C,
//     moreToCome, exhaustAllowed), the kind 0 body and kind 1 document
//     sequences; ReplyMsg for the listener's own replies (denials).
//   - query.go: OP_QUERY (2004), the legacy handshake (hello/isMaster
//     against admin.$cmd).
//   - reply.go: OP_REPLY (1), the answer to an OP_QUERY; ReplyQuery.
//   - compressed.go: OP_COMPRESSED (2012) with noop, snappy, zlib and zstd:
//     Decompress rebuilds the original message (header included) for
//     inspection, bounded by the same maximum; Compress for tests and
//     stand-in upstreams.
//   - validate.go: ValidateDocument, every BSON document whole (bsoncore's
//     Validate checks the top level only), at most MaxDepth (200) deep.
//   - errors.go: SizeError, MalformedError, ErrChecksum,
//     ErrUnsupportedCompressor. Every decoding error means: close that one
//     connection with a log line.
//
// wiretest/ is test support: Recorder, a capture server real clients talk
// to; testdata/drivers holds what mongosh and the Node driver sent to it.
//
// What a command means (name, targets, actions, canonical bytes) is the
// command package's job; docs/mongodb-listener.md, "Wire and analysis",
// documents both for operators.
package wire
