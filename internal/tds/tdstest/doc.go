// Package tdstest is a small in-process TDS server built on internal/tds,
// for tests. It answers PRELOGIN (ENCRYPT_NOT_SUP, so only for clients that
// asked for no encryption), accepts any LOGIN7 (LOGINACK, ENVCHANGE database
// and packet size, DONE), records every message it receives, and answers
// SQLBatch and RPC requests through the caller's handlers.
//
// It proves the codec against real clients (go-mssqldb) and is the seed of
// the in-process TDS upstream stand-in the mssql conformance suite uses when
// no real SQL Server is reachable. It is not a SQL engine: handlers decide
// every answer.
//
// Files: server.go (listener, per-connection loop, login), reply.go (token
// helpers to build answers).
package tdstest
