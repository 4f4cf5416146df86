// Package tdstest is a small in-process TDS server built on internal/tds,
// for tests. It answers PRELOGIN (encryption per its setting, see
// below), accepts any LOGIN7 (LOGINACK, ENVCHANGE database
// and packet size, DONE), records every message it receives, and answers
// SQLBatch and RPC requests through the caller's handlers.
//
// It proves the codec against real clients (go-mssqldb). Mini (mini.go,
// minisql.go) is the SQL Server 2022 stand-in the mssql conformance suite
// and bench/mssql.sh use when no real SQL Server is reachable: it checks
// LOGIN7 credentials, keeps per-connection state through Server.Session
// (current database, transaction, prepared handles), runs a handful of
// pattern-matched statements on an in-memory table store and records each
// one it executed; it is not a SQL engine.
//
// Files: server.go (per-connection loop, login), listen.go (Listen/Close,
// for callers that are not one test), session.go (Session, Reply: a
// response written packet by packet), mini.go, minisql.go (the stand-in),
// reply.go (token helpers to build answers). mini_test.go drives Mini with
// go-mssqldb. Tests with real clients: mssqldb_test.go
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
