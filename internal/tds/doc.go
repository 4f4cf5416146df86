// Package tds is a codec for the Tabular Data Stream protocol of SQL Server
// ([MS-TDS]), written from the spec for the Sidecar's mssql listener. It is
// pure: bytes in, bytes out (io.Reader/io.Writer at most), no network, no
// goroutines, no hidden state; in the manner of jackc/pgx pgproto3, one
// message or token per file with Decode/Encode (or Append) symmetric.
//
// It lives in internal/ rather than adapters/inbound/mssql/ because three
// packages use it: the listener (client leg and upstream leg), the
// in-process TDS upstream stand-in of the conformance suite (tdstest), and
// the benchmarks. No Go library implements the server side of TDS;
// github.com/microsoft/go-mssqldb is the client we test against
// (tdstest/mssqldb_test.go), not code we copy.
//
// Files:
//   - packet.go: the 8-byte packet header (MS-TDS 2.2.3), MessageReader
//     (reassembly across packets, bounded by packet size and a max message
//     size), AppendPackets/WriteMessage (split to the negotiated size).
//   - prelogin.go: PRELOGIN options (2.2.6.5) and the ENCRYPTION values;
//     the encryption itself (negotiation, TLS in PRELOGIN packets, login-only,
//     TDS 8.0 strict) is package tdstls.
//   - login7.go: LOGIN7 (2.2.6.4) with the password scramble and FeatureExt.
//   - allheaders.go: ALL_HEADERS (2.2.5.3), the transaction descriptor.
//   - sqlbatch.go: SQLBatch (2.2.6.7).
//   - rpc.go: RPC requests (2.2.6.6): calls by name or ProcID, parameters,
//     Statement() for sp_executesql/sp_prepare/sp_prepexec/sp_cursoropen,
//     Param.Canonical() for fingerprints; bytes the server may frame
//     otherwise are *UnreadableError.
//   - paramvalue.go: an RPC parameter's value (TEXT, NTEXT and IMAGE as
//     LONGLEN and bytes, unlike a ROW's).
//   - typeinfo.go: TYPE_INFO and TYPE_VARBYTE values (2.2.5.4, 2.2.5.2),
//     PLP chunks, a result column's CLR UDT (UDT_INFO); unknown types are
//     *UnknownTypeError.
//   - collation.go: a collation's code page (2.2.5.1.2), in which varchar
//     values are sent: UTF-8 collations, the single-byte Windows pages.
//   - attention.go: Attention (2.2.1.7).
//   - loginack.go (token constants too), envchange.go, error.go (ERROR and
//     INFO), done.go (DONE, DONEPROC, DONEINPROC), colmetadata.go, row.go
//     (ROW, NBCROW), altmetadata.go (ALTMETADATA, ALTROW), offset.go
//     (OFFSET), dataclassif.go (DATACLASSIFICATION, versions 1 and 2):
//     tokens of the tabular response (2.2.7).
//   - rowwalk.go: RowWalker measures a ROW, NBCROW or ALTROW fed in pieces
//     without holding its values (RowLen is the same walk).
//   - scanner.go: Scanner frames every token of TDS 7.4 a server sends to
//     find ENVCHANGE, ERROR and DONE boundaries, with the features the
//     login acknowledged (FEATUREEXTACK); ErrCannotFrame for what it does
//     not read (column encryption's CekTable and cipher metadata).
//   - ucs2.go: UCS-2 strings and the bounds-checked reader every decoder
//     uses (short input is ErrShort, never a panic).
//   - errors.go: the package's errors.
//
// testdata/capture holds messages recorded from go-mssqldb and FreeTDS tsql
// (regenerate: go test ./internal/tds/tdstest -update); the fuzz targets
// (fuzz_test.go) and the unit tests use them as real-client input.
//
// Assumptions: TDS 7.2 or later (ALL_HEADERS present, 8-byte DONE row
// counts, LOGIN7 with cbSSPILong); no column encryption (its tokens are
// ErrCannotFrame), no MARS (SMP).
package tds
