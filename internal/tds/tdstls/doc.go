// Package tdstls is TDS encryption on both sides of a connection ([MS-TDS]
// 2.2.6.5 PRELOGIN, TDS 8.0): the negotiation table as a pure function, the
// TLS handshake carried inside PRELOGIN packets, login-only encryption, and
// TDS 8.0 strict TLS. The mssql listener uses it on its client leg (Server)
// and its upstream leg (Client); internal/tds/tdstest uses Server to run the
// stand-in upstream in every mode. It knows TDS framing only as far as
// encryption needs (package tds does the rest) and does no logging: it
// returns what happened and the caller logs.
//
// Modes (docs/mssql-encryption.md explains them for operators):
//   - Plain: no TLS.
//   - LoginOnly (server ENCRYPT_OFF × client ENCRYPT_OFF): the TLS
//     handshake travels in PRELOGIN packets (type 0x12), the LOGIN7 message
//     is sent as TLS records, then both directions continue in clear.
//   - Full (either side ON/REQ): the same handshake, then every byte is a
//     TLS record on the socket.
//   - StrictTLS (TDS 8.0): TLS with ALPN "tds/8.0" from the first byte;
//     PRELOGIN and everything after it inside.
//
// Server side (per accepted connection c):
//
//	srv := &tdstls.Server{Setting: tdstls.Off, Config: cfg}
//	conn, strict, err := srv.Begin(c)          // TLS first byte → strict handshake
//	m, err := (&tds.MessageReader{R: conn}).ReadMessage() // client's PRELOGIN
//	p, err := tds.DecodePrelogin(m.Data)
//	enc, outcome, err := srv.Answer(p, strict) // err: close + log, never NOT_SUP
//	answer.Set(tds.PreloginEncryption, []byte{enc}) // + VERSION etc.
//	tds.WriteMessage(conn, tds.PacketReply, 0, 0, answer.Encode(), 0)
//	conn, err = srv.Upgrade(conn, outcome)     // the conn for the rest of the session
//
// Client side (the upstream leg, per dialled connection c):
//
//	cl := &tdstls.Client{Setting: tdstls.On, Config: cfg}
//	conn, err := cl.Begin(c)                   // Strict: TLS handshake now
//	pre.Set(tds.PreloginEncryption, []byte{cl.Request()})
//	tds.WriteMessage(conn, tds.PacketPrelogin, 0, 0, pre.Encode(), 0)
//	m, err := (&tds.MessageReader{R: conn}).ReadMessage() // server's answer
//	p, err := tds.DecodePrelogin(m.Data)
//	outcome, err := cl.Outcome(p)              // ErrServerCannotEncrypt: no downgrade
//	conn, err = cl.Upgrade(conn, outcome)
//
// After Upgrade, read and write TDS messages on the returned conn as on a
// plain one; for LoginOnly it switches to clear by itself right after the
// LOGIN7 message (the server's conn after reading it, the client's after
// writing it), so one MessageReader on the returned conn serves the whole
// session. Read
// the PRELOGIN with a MessageReader (it reads exactly the packets of one
// message): bytes read ahead of the handshake would be lost to it.
//
// No certificate: a server that must encrypt and has no certificate makes
// one at start with SelfSigned, as SQL Server does ("self-signed fallback");
// the caller logs it with its fingerprint. Clients then need
// TrustServerCertificate (or the fingerprint) — the session is private but
// the server unauthenticated, which the listener's docs say.
//
// Files:
//   - negotiate.go: Setting, Outcome, Negotiate (server side of the
//     2.2.6.5 table), ClientOutcome (client side), ParseSetting.
//   - server.go: Server (Begin, Answer, Upgrade).
//   - client.go: Client (Begin, Request, Outcome, Upgrade).
//   - wrapped.go: wrappedConn, TLS records in PRELOGIN packets;
//     switchConn, from PRELOGIN packets to the socket after the handshake.
//   - boundary.go: firstMessage (where LOGIN7 ends in a packet stream) and
//     recordReader (one TLS record at a time, so tls.Conn buffers nothing
//     of the clear messages after LOGIN7).
//   - conn.go: upgrade (both sides' Upgrade), the login-only connections,
//     the TLS configurations per mode, ConnectionState (for log lines).
//   - selfsigned.go: SelfSigned.
//   - errors.go: the package's errors.
//
// Tests: negotiate_test.go (the table; a client that asked for encryption
// never gets ENCRYPT_NOT_SUP; both sides read the same outcome),
// pair_test.go (Client against Server over TCP in every setting pair, with
// what an eavesdropper sees on the wire); real clients (go-mssqldb,
// FreeTDS) against tdstest in ../tdstest/*encryption_test.go.
//
// Fuzz targets (fuzz_test.go, run by scripts/fuzz.sh): FuzzWrappedReader
// (handshake bytes in PRELOGIN packets), FuzzRecordReader (one TLS record at
// a time), FuzzFirstMessage (where LOGIN7 ends); seeds in testdata/handshake,
// recorded from a real handshake (go test -run TestCaptureSeeds -update).
//
// Choices: the PRELOGIN-wrapped handshake is TLS 1.2 at most (SQL Server
// offers TLS 1.3 only with TDS 8.0, and TLS 1.3's post-handshake messages
// have no PRELOGIN packet to travel in); strict is TLS 1.2 or later. A strict
// server accepts a client that sends no ALPN. ENCRYPT_CLIENT_CERT (0x80) is
// ignored: no certificate authentication of clients.
package tdstls
