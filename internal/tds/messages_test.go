package tds

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

func TestPreloginCapture(t *testing.T) {
	p, err := DecodePrelogin(capture(t, "prelogin"))
	if err != nil {
		t.Fatal(err)
	}
	if enc, ok := p.Encryption(); !ok || enc != EncryptNotSup {
		t.Fatalf("go-mssqldb encrypt=disable sent ENCRYPTION %d %v, want NOT_SUP", enc, ok)
	}
	if _, _, ok := p.Version(); !ok {
		t.Fatal("no VERSION")
	}
	if !bytes.Equal(p.Encode(), capture(t, "prelogin")) {
		t.Fatal("PRELOGIN does not re-encode byte for byte")
	}
}

func TestPreloginRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		enc  byte
	}{{"off", EncryptOff}, {"on", EncryptOn}, {"not sup", EncryptNotSup}, {"req", EncryptReq}} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Prelogin{}
			p.Set(PreloginVersion, VersionData(0x10000FA0, 0))
			p.Set(PreloginEncryption, []byte{tc.enc})
			p.Set(PreloginInstOpt, []byte("MSSQLServer\x00"))
			p.Set(PreloginThreadID, []byte{0, 0, 0x12, 0x34})
			p.Set(PreloginMARS, []byte{1})
			p.Set(PreloginTraceID, make([]byte, 36))
			p.Set(PreloginFedAuthRequired, []byte{1})
			p.Set(PreloginNonceOpt, bytes.Repeat([]byte{7}, 32))
			got, err := DecodePrelogin(p.Encode())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, p) {
				t.Fatalf("got %+v\nwant %+v", got, p)
			}
			enc, _ := got.Encryption()
			v, _, _ := got.Version()
			id, _ := got.ThreadID()
			if enc != tc.enc || v != 0x10000FA0 || id != 0x1234 || !got.MARS() || !got.FedAuthRequired() {
				t.Fatalf("accessors: enc %d version %x thread %x", enc, v, id)
			}
		})
	}
}

func TestPreloginMalformed(t *testing.T) {
	for _, in := range [][]byte{nil, {0}, {0, 0, 6, 0, 1}, {0, 0, 6, 0, 9, 0xFF}} {
		if _, err := DecodePrelogin(in); !errors.Is(err, ErrShort) {
			t.Errorf("%x: err = %v", in, err)
		}
	}
}

func TestLogin7Capture(t *testing.T) {
	raw := capture(t, "login7")
	l, err := DecodeLogin7(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"user": "hoopuser", "password": "S3cret!pw", "database": "hoopdb", "app": "hoop-approval=return", "library": "go-mssqldb"}
	got := map[string]string{"user": l.UserName, "password": l.Password, "database": l.Database, "app": l.AppName, "library": l.CltIntName}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	if l.TDSVersion != Version74 || l.PacketSize != 4096 {
		t.Fatalf("version %x packet size %d", l.TDSVersion, l.PacketSize)
	}
	if !bytes.Equal(l.Encode(), raw) {
		t.Fatal("LOGIN7 does not re-encode byte for byte")
	}
}

func TestLogin7RoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Login7
	}{
		{"plain", Login7{TDSVersion: Version74, PacketSize: 8000, ClientPID: 42, OptionFlags1: 0xE0, OptionFlags2: 0x03, ClientTimeZone: -60, ClientLCID: 0x409,
			HostName: "host", UserName: "ü", Password: "p@ss✓", AppName: "app", ServerName: "srv", CltIntName: "lib", Language: "us_english", Database: "db",
			ClientID: [6]byte{1, 2, 3, 4, 5, 6}, AtchDBFile: "f.mdf"}},
		{"change password", Login7{TDSVersion: Version74, OptionFlags3: Flag3ChangePassword, UserName: "u", Password: "old", ChangePassword: "new"}},
		{"features", Login7{TDSVersion: Version74, OptionFlags3: Flag3Extension, UserName: "u", Features: []Feature{{ID: FeatureFedAuth, Data: []byte{2, 1}}, {ID: FeatureUTF8Support, Data: []byte{}}}}},
		{"sspi", Login7{TDSVersion: Version74, OptionFlags2: Flag2IntSecurity, SSPI: []byte("NTLMSSP\x00")}},
		{"long sspi", Login7{TDSVersion: Version74, OptionFlags2: Flag2IntSecurity, SSPI: bytes.Repeat([]byte{9}, 70000)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeLogin7(tc.l.Encode())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.l) {
				t.Fatalf("got  %+v\nwant %+v", *got, tc.l)
			}
		})
	}
}

func TestLogin7PasswordScramble(t *testing.T) {
	// MS-TDS 2.2.6.4: swap nibbles, then XOR 0xA5. 'a' = 0x61 0x00 → 0xB3 0xA5.
	l := Login7{Password: "a"}
	b := l.Encode()
	off := int(b[44]) | int(b[45])<<8
	if !bytes.Equal(b[off:off+2], []byte{0xB3, 0xA5}) {
		t.Fatalf("scrambled 'a' = %x", b[off:off+2])
	}
}

func TestLogin7Malformed(t *testing.T) {
	good := (&Login7{UserName: "user"}).Encode()
	bad := bytes.Clone(good)
	bad[42] = 0xFF // user name length past the end
	for name, in := range map[string][]byte{"short": good[:50], "offset past end": bad} {
		if _, err := DecodeLogin7(in); !errors.Is(err, ErrShort) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestSQLBatch(t *testing.T) {
	raw := capture(t, "sqlbatch")
	b, err := DecodeSQLBatch(raw)
	if err != nil {
		t.Fatal(err)
	}
	if desc, n, ok := b.Headers.TransactionDescriptor(); b.Text == "" || !ok || desc != 0 || n != 1 {
		t.Fatalf("capture: %q desc %x outstanding %d %v", b.Text, desc, n, ok)
	}
	for _, tc := range []SQLBatch{
		{Headers: TxHeaders(0x0102030405060708, 1), Text: "BEGIN TRAN; DELETE FROM t; -- ✓ 𝄞"},
		{Headers: AllHeaders{Headers: []StreamHeader{{Type: HeaderTraceActivity, Data: make([]byte, 20)}, TxHeaders(5, 2).Headers[0]}}, Text: ""},
	} {
		got, err := DecodeSQLBatch(tc.Encode())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, tc) {
			t.Fatalf("got %+v want %+v", *got, tc)
		}
	}
	for _, in := range [][]byte{{1, 2}, {50, 0, 0, 0}, {12, 0, 0, 0, 9, 0, 0, 0, 2, 0, 1, 2}} {
		if _, err := DecodeSQLBatch(in); !errors.Is(err, ErrShort) {
			t.Errorf("%x: err = %v", in, err)
		}
	}
}

func TestRPCCapture(t *testing.T) {
	m, err := DecodeRPC(capture(t, "rpc"))
	if err != nil {
		t.Fatal(err)
	}
	text, vals, ok := m.Calls[0].Statement()
	if !ok || text != "SELECT @p1 + @p2" || len(vals) != 2 || vals[0].Name != "@p1" {
		t.Fatalf("statement %q %d", text, len(vals))
	}
	types, err := DecodeRPC(capture(t, "rpc_types"))
	if err != nil || len(types.Calls[0].Params) < 10 || !bytes.Equal(types.Encode(), capture(t, "rpc_types")) {
		t.Fatalf("go-mssqldb's typed parameters: %v", err)
	}
	byName, err := DecodeRPC(capture(t, "rpc_byname"))
	if err != nil || byName.Calls[0].ProcName != "BOOM" {
		t.Fatalf("by name: %+v %v", byName, err)
	}
}

func TestRPCRoundTrip(t *testing.T) {
	for i, m := range rpcSamples() {
		enc := m.Encode()
		got, err := DecodeRPC(enc)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		if !bytes.Equal(got.Encode(), enc) || len(got.Calls) != len(m.Calls) {
			t.Fatalf("sample %d does not round-trip", i)
		}
		for j, c := range got.Calls {
			for k, p := range c.Params {
				w := m.Calls[j].Params[k]
				if p.Name != w.Name || p.Type.Type != w.Type.Type || !bytes.Equal(p.Value, w.Value) || (p.Value == nil) != (w.Value == nil) {
					t.Errorf("sample %d call %d param %d: got %+v want %+v", i, j, k, p, w)
				}
			}
		}
	}
}

func TestRPCStatement(t *testing.T) {
	s := rpcSamples()
	for _, tc := range []struct {
		call   RPCCall
		text   string
		values int
		ok     bool
	}{
		{s[0].Calls[0], "INSERT INTO t VALUES (@a,@b,@c,@d,@e,@f,@g,@h,@i,@j,@k,@l,@m,@n)", 15, true},
		{s[1].Calls[0], "DELETE FROM t WHERE id=@p1", 1, true},
		{s[1].Calls[1], "", 0, false},
		{s[1].Calls[2], "", 0, false},
		{RPCCall{ProcName: "master..SP_EXECUTESQL", Params: []Param{nvarchar("", "SELECT 1")}}, "SELECT 1", 0, true},
		{RPCCall{ProcID: ProcPrepare, Params: []Param{{Name: "@handle", Type: TypeInfo{Type: TypeIntN, Size: 4}}, nvarchar("", ""), nvarchar("", "UPDATE t SET a=1")}}, "UPDATE t SET a=1", 0, true},
		// The leading parameters bind by position, whatever their names.
		{RPCCall{ProcID: ProcPrepare, Params: []Param{{Name: "@h", Type: TypeInfo{Type: TypeIntN, Size: 4}}, nvarchar("", ""), nvarchar("", "UPDATE t SET a=1")}}, "UPDATE t SET a=1", 0, true},
		{RPCCall{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("@params", "DELETE FROM t"), nvarchar("@stmt", "")}}, "DELETE FROM t", 0, true},
		{RPCCall{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("", "SELECT @stmt"), nvarchar("", "@stmt nvarchar(20)"), nvarchar("@stmt", "DELETE FROM t")}}, "SELECT @stmt", 1, true},
		{RPCCall{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("@STMT", "SELECT @p1"), nvarchar("@params", "@p1 int"), nvarchar("@p1", "x")}}, "SELECT @p1", 1, true},
		// A single-byte text reads the same in every code page only when ASCII.
		{RPCCall{ProcID: ProcExecuteSQL, Params: []Param{{Type: TypeInfo{Type: TypeBigVarChar}, Value: []byte("SELECT 1")}}}, "SELECT 1", 0, true},
		{RPCCall{ProcID: ProcExecuteSQL, Params: []Param{{Type: TypeInfo{Type: TypeBigVarChar}, Value: []byte("SELECT \x81[ DELETE FROM t --]")}}}, "", 0, false},
		// tedious and Node mssql name the first parameter @statement, as SQL Server itself does.
		{RPCCall{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("@statement", "SELECT 1;")}}, "SELECT 1;", 0, true},
		{RPCCall{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("@statement", "SELECT @params"), nvarchar("@params", "@params nvarchar(5)"), nvarchar("@params", "x")}}, "SELECT @params", 1, true},
	} {
		text, vals, ok := tc.call.Statement()
		if text != tc.text || len(vals) != tc.values || ok != tc.ok {
			t.Errorf("%+v: got %q %d %v", tc.call.ProcName, text, len(vals), ok)
		}
	}
	// The same statement with values 1, 2, 1: two distinct canonical forms.
	one := Param{Name: "@p1", Type: TypeInfo{Type: TypeIntN, Size: 8, Raw: []byte{TypeIntN, 8}}, Value: le64(1)}
	two := one
	two.Value = le64(2)
	null := one
	null.Value = nil
	if bytes.Equal(one.Canonical(), two.Canonical()) || !bytes.Equal(one.Canonical(), one.Canonical()) || bytes.Equal(null.Canonical(), (Param{Type: one.Type, Value: []byte{}}).Canonical()) {
		t.Fatal("Canonical does not separate values")
	}
}

func TestRPCUnknownType(t *testing.T) {
	m := &RPC{Headers: TxHeaders(0, 1), Calls: []RPCCall{{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("", "x")}}}}
	b := m.Encode()
	b = append(b, 2, '@', 0, 't', 0, 0, 0xF3) // a TVP parameter
	_, err := DecodeRPC(b)
	var u *UnknownTypeError
	if !errors.As(err, &u) || u.Type != 0xF3 {
		t.Fatalf("err = %v", err)
	}
}

// Bytes the server may frame otherwise are refused; 0xFE (NoExecFlag)
// separates calls as 0xFF does.
func TestRPCFraming(t *testing.T) {
	two := func(sep byte) []byte {
		m := &RPC{Headers: TxHeaders(0, 1), Separator: sep, Calls: []RPCCall{
			{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("", "SELECT 1")}},
			{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("", "DELETE FROM t")}}}}
		return m.Encode()
	}
	if m, err := DecodeRPC(two(rpcNoExecFlag)); err != nil || len(m.Calls) != 2 {
		t.Fatalf("0xFE: %v", err)
	}
	encrypted := nvarchar("", "SELECT 1")
	encrypted.Status = 0x08
	for name, b := range map[string][]byte{
		"0x80":      two(rpcBatchFlag71),
		"encrypted": (&RPC{Headers: TxHeaders(0, 1), Calls: []RPCCall{{ProcID: ProcExecuteSQL, Params: []Param{encrypted}}}}).Encode(),
	} {
		var u *UnreadableError
		if _, err := DecodeRPC(b); !errors.As(err, &u) {
			t.Errorf("%s: err = %v, want UnreadableError", name, err)
		}
	}
}

// An NTEXT parameter as tedious sends it (TYPE_INFO 0x63, LONGLEN, the
// bytes; no text pointer) is one value, and the call after it is read.
func TestRPCTextParameter(t *testing.T) {
	first := RPCCall{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("", "SELECT @p1"), nvarchar("", "@p1 ntext")}}
	second := RPCCall{ProcID: ProcExecuteSQL, Params: []Param{nvarchar("", "DELETE FROM t")}}
	one := (&RPC{Headers: TxHeaders(0, 1), Calls: []RPCCall{first}}).Encode()
	both := (&RPC{Headers: TxHeaders(0, 1), Calls: []RPCCall{first, second}}).Encode()
	v := AppendUCS2(nil, "abc")
	b := append([]byte(nil), one...)
	b = append(b, 3, '@', 0, 'p', 0, '1', 0, 0, TypeNText)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = append(b, 0, 0, 0, 0, 0)
	b = append(binary.LittleEndian.AppendUint32(b, uint32(len(v))), v...)
	b = append(b, 0, 0, TypeImage, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF) // a NULL IMAGE
	b = append(b, both[len(one):]...)
	m, err := DecodeRPC(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Calls) != 2 || len(m.Calls[0].Params) != 4 || DecodeUCS2(m.Calls[0].Params[2].Value) != "abc" || m.Calls[0].Params[3].Value != nil {
		t.Fatalf("calls %+v", m.Calls)
	}
	if text, _, _ := m.Calls[1].Statement(); text != "DELETE FROM t" {
		t.Fatalf("second call %q", text)
	}
	if !bytes.Equal(m.Encode(), b) {
		t.Fatalf("encode:\n%x\n%x", m.Encode(), b)
	}
}
