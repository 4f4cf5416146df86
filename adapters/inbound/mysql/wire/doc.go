// Package wire is the MySQL Client/Server Protocol as the mysql listener
// reads and writes it: one message kind per file, as internal/tds and
// mongodb/wire hold theirs.
//
//   - frame.go: packets (a 4-byte header, payloads of up to 2^24-1 bytes
//     continued in the next packet), read and written; Error, a packet
//     that breaks the protocol.
//   - lenenc.go: length-encoded integers and strings read, strings
//     appended (the integer by go-mysql's AppendLengthEncodedInteger).
//   - handshake.go: the server's HandshakeV10, the client's
//     HandshakeResponse41 and its connection attributes, the SSLRequest.
//   - status.go: the server status flags of OK and EOF packets.
//   - err.go: the ERR packet.
//   - column.go: a result's ColumnDefinition41.
//   - row.go: the sizes of binary-protocol row values.
//
// Nothing here decides anything: the listener (package mysql) chooses the
// capability flags it relays and what it answers.
package wire
