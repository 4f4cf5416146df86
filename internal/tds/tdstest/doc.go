// Package tdstest is a small in-process TDS server built on internal/tds,
// for tests. It answers PRELOGIN (encryption per its setting, see
// below), accepts any LOGIN7 (LOGINACK, ENVCHANGE database
// and packet size, DONE), records every message it receives, and answers
// SQLBatch and RPC requests through the caller's handlers.
//
// It proves the codec against real clients (go-mssqldb) and is the seed of
// the in-process TDS upstream stand-in the mssql conformance suite uses when
// no real SQL Server is reachable. It is not a SQL engine: handlers decide
// every answer.
//
// Files: server.go (listener, per-connection loop, login), reply.go (token
// helpers to build answers). Tests with real clients: mssqldb_test.go
// (go-mssqldb v1.11.2, encrypt=disable: batches, errors, sp_executesql),
// types_test.go (every parameter type go-mssqldb maps), attention_test.go
// (context cancel → Attention; packet size 512), freetds_test.go (FreeTDS
// tsql). `go test ./internal/tds/tdstest -update` rewrites the captured
// client messages in ../testdata/capture, the fuzz seeds of package tds.
//
// Encryption: Server.Encryption picks any tdstls setting (encryption.go;
// default NotSupported: a client that asks for encryption is refused by
// closing, never downgraded); encryption_test.go runs go-mssqldb in every
// encrypt mode against every setting, freetds_encryption_test.go FreeTDS
// tsql in every `encryption` value.
//
// Limits: no MARS, TDS 7.2+ clients only.
package tdstest
