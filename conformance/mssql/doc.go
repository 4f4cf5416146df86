// Package mssqlconf is the conformance suite of the mssql listener (issue
// 16): the real sidecar and controlplane binaries (conformance/harness),
// with the real clients go-mssqldb v1.11.2 (encrypt=disable, false, true,
// strict), FreeTDS tsql (Debian freetds-bin) and Node mssql 12.7.14 /
// tedious 20.3.9 (node/), against SQL Server: HOOP_TEST_MSSQL_URL, a
// testcontainers-go SQL Server 2022 container when the image is on a Docker
// engine, else the in-process stand-in tdstest.Mini, which each run reports
// as "no real SQL Server: …" (harness.MSSQL says the order). Approvals are
// decided with the reference Control Plane's CLI.
//
// Every test runs against a real SQL Server too. What ran is checked by its
// effect on the data (COUNT(*)); with the stand-in, its log of executed
// statements is checked as well (env.ran, labelled "stand-in only").
// TestAttention's "the upstream saw the Attention" is read from the
// stand-in; against a real server the test checks the call returned and
// the connection is usable.
package mssqlconf
