package mysql

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"testing"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/ports"
)

// packet frames payload as one packet with sequence id seq.
func packet(seq byte, payload []byte) []byte {
	var b bytes.Buffer
	wire.Write(&b, seq, payload)
	return b.Bytes()
}

func command(cmd byte, body string) []byte { return packet(0, append([]byte{cmd}, body...)) }

// okPacket is an OK with status flags st.
func okPacket(seq byte, st uint16) []byte {
	return packet(seq, binary.LittleEndian.AppendUint16([]byte{0, 0, 0}, st))
}

// FuzzPackets feeds one byte string to the decoders of client packets the
// listener reads itself (wire's fuzz target covers the packet reader and
// the handshakes): a COM_CHANGE_USER and COM_STMT_EXECUTE parameters. Any
// input must end in a value or an error, never a panic.
func FuzzPackets(f *testing.F) {
	f.Add([]byte("root\x00\x00test\x00\x21\x00mysql_native_password\x00"))
	f.Add([]byte{0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0x00, 0x01, 0x01, 0x02, 0x00, 0x00, 0x00})
	f.Fuzz(func(_ *testing.T, data []byte) {
		parseChangeUser(data, relayedCaps)
		if len(data) > 0 {
			n := int(data[0] % 8)
			decodeParams(data[1:], n, nil, map[int][]byte{1: []byte("long")})
		}
	})
}

// FuzzSession feeds a logged-in session a stream of client commands and a
// stream of upstream answers: every command goes through readCommand and
// command (COM_QUERY, the COM_STMT_* family, COM_INIT_DB, COM_CHANGE_USER,
// COM_PROCESS_KILL, unknown commands), every answer through relay (result
// sets, EOF/OK terminators, LOAD DATA LOCAL requests, prepare answers). Any
// input must end the session with an error, never a panic or a hang.
func FuzzSession(f *testing.F) {
	fuzzSession(f, listenertest.FuzzListener(f, "mysql", ports.SpendOnSent))
}

// FuzzMaskedSession is FuzzSession on a listener with masking rules
// (maskSet): every result set's rows go through the row masker, in the
// text and the binary protocol, and cursor fetches too.
func FuzzMaskedSession(f *testing.F) {
	l := listenertest.FuzzListener(f, "mysql", ports.SpendOnSent)
	s := *l.Settings()
	s.Masking = maskSet(f)
	l.Update(s)
	def := (&gm.Field{Table: []byte("t"), Name: []byte("c"), Charset: 45, Type: gm.MYSQL_TYPE_VAR_STRING}).Dump()
	// The first byte of the upstream's bytes is odd: CLIENT_DEPRECATE_EOF (no EOF after the columns).
	f.Add(command(gm.COM_QUERY, "SELECT c FROM t"), append(packet(1, []byte{1}), append(packet(2, def),
		append(packet(3, wire.AppendLenencString(nil, []byte("alice@example.com"))), packet(4, []byte{0xfe, 0, 0, 2, 0, 0, 0})...)...)...))
	stmtOK := packet(1, []byte{0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	f.Add(append(command(gm.COM_STMT_PREPARE, "SELECT c FROM t"), append(command(gm.COM_STMT_EXECUTE, "\x01\x00\x00\x00\x01\x01\x00\x00\x00"), command(gm.COM_STMT_FETCH, "\x01\x00\x00\x00\x05\x00\x00\x00")...)...),
		append(stmtOK, append(packet(2, def), append(packet(3, []byte{0xfe, 0, 0, 2, 0}), append(packet(1, []byte{1}), append(packet(2, def), append(packet(3, []byte{0xfe, 0, 0, 0x42, 0}),
			append(packet(1, append([]byte{0, 0}, wire.AppendLenencString(nil, []byte("bob@example.com"))...)), packet(2, []byte{0xfe, 0, 0, 0x82, 0})...)...)...)...)...)...)...))
	fuzzSession(f, l)
}

// fuzzSession runs the session fuzz target on listener l.
func fuzzSession(f *testing.F, l *app.Listener) {
	p := New(nil)
	log := slog.New(slog.DiscardHandler)
	stmtOK := packet(1, []byte{0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0})
	f.Add(command(gm.COM_QUERY, "SELECT 1"), append(packet(1, []byte{1}), append(packet(2, []byte("def")), append(packet(3, []byte{0xfe, 0, 0, 2, 0}), append(packet(4, []byte{1, '1'}), packet(5, []byte{0xfe, 0, 0, 2, 0})...)...)...)...))
	f.Add(command(gm.COM_QUERY, "DELETE FROM t; SELECT 1"), okPacket(1, 2))
	f.Add(command(gm.COM_QUERY, "TRUNCATE t"), okPacket(1, 2))
	f.Add(append(command(gm.COM_QUERY, "BEGIN"), command(gm.COM_QUERY, "DROP TABLE t")...), append(okPacket(1, 3), okPacket(1, 2)...))
	f.Add(append(command(gm.COM_STMT_PREPARE, "DELETE FROM t WHERE id = ?"), command(gm.COM_STMT_EXECUTE, "\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x08\x00\x07\x00\x00\x00\x00\x00\x00\x00")...),
		append(stmtOK, append(packet(2, []byte("def")), packet(3, []byte{0xfe, 0, 0, 2, 0})...)...))
	f.Add(append(command(gm.COM_STMT_PREPARE, "SELECT ?"), append(command(gm.COM_STMT_SEND_LONG_DATA, "\x01\x00\x00\x00\x00\x00abc"), command(gm.COM_STMT_EXECUTE, "\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\xfe\x00")...)...), stmtOK)
	f.Add(command(gm.COM_QUERY, "LOAD DATA LOCAL INFILE 'x' INTO TABLE t"), append(packet(1, []byte("\xfbx")), okPacket(3, 2)...))
	f.Add(command(gm.COM_CHANGE_USER, "bob\x00\x00db\x00\x21\x00mysql_native_password\x00"), okPacket(1, 2))
	f.Add(append(command(gm.COM_INIT_DB, "other"), append(command(gm.COM_PROCESS_KILL, "\x05\x00\x00\x00"), command(0xee, "")...)...), okPacket(1, 2))
	f.Add(append(command(gm.COM_STMT_CLOSE, "\x01\x00\x00\x00"), append(command(gm.COM_STMT_RESET, "\xff\xff\xff\xff"), command(gm.COM_FIELD_LIST, "t\x00")...)...), append(okPacket(1, 2), packet(1, []byte{0xfe, 0, 0, 2, 0})...))
	f.Fuzz(func(_ *testing.T, client, up []byte) {
		s := newSession(p, l, log, listenertest.ReadConn{R: bytes.NewReader(client)}, listenertest.ReadConn{R: bytes.NewReader(up)})
		s.caps = relayedCaps &^ gm.CLIENT_DEPRECATE_EOF
		if len(up) > 0 && up[0]&1 == 1 {
			s.caps |= gm.CLIENT_DEPRECATE_EOF
		}
		s.user, s.database, s.upstreamAddr = "root", "test", "fuzz"
		s.run()
	})
}
