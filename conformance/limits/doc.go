// Package limits holds the black-box tests of the held-payload budget and
// the memory bound (docs/config.md, "limits"): the real sidecar binary with
// limits.held_bytes: 64MiB, clients at once each sending a held statement
// of the largest size, and the Sidecar's peak resident memory (VmHWM)
// checked against the documented bound (app.Limits.RSSBound). One test runs
// a PostgreSQL and an http listener with 200 clients while a loop of
// SELECT 1 / GET keeps running (limits_test.go); one runs each database
// listener alone, table-driven: mysql (1, 6 and 12 multi-row INSERTs of
// 8 MiB, and 12 that only the parser reads), mssql (12 multi-row INSERT
// batches of 4 Mi characters, and 12 that only the grammar reads) and
// mongodb (databases_test.go).
package limits
