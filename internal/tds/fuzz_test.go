package tds

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// capture returns a go-mssqldb message recorded by tdstest's
// TestGoMSSQLDB -update (testdata/capture/<name>.bin).
func capture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "capture", name+".bin"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// FuzzPacketReader feeds arbitrary bytes to MessageReader: no panic, no
// message larger than the input, and every message re-split into packets
// reassembles to the same payload.
func FuzzPacketReader(f *testing.F) {
	for _, name := range []string{"prelogin", "login7", "sqlbatch", "rpc", "login7_freetds"} {
		data := capture(f, name)
		f.Add(AppendPackets(nil, PacketSQLBatch, 0, 0, data, 512))
		f.Add(AppendPackets(nil, PacketRPC, StatusResetConnection, 0, data, 64))
	}
	f.Add(AppendAttention(nil, 0))
	f.Add([]byte{1, 0, 0, 8, 0, 0, 1, 0, 1, 1, 0, 9, 0, 0, 2, 0, 'x'})
	f.Fuzz(func(t *testing.T, in []byte) {
		mr := &MessageReader{R: bytes.NewReader(in), PacketSize: 4096, MaxMessage: 1 << 16}
		for {
			m, err := mr.ReadMessage()
			if err != nil {
				return
			}
			if len(m.Data) > len(in) {
				t.Fatalf("message of %d bytes from %d input bytes", len(m.Data), len(in))
			}
			again, err := (&MessageReader{R: bytes.NewReader(AppendPackets(nil, m.Type, m.Status, m.SPID, m.Data, 512))}).ReadMessage()
			if err != nil || !bytes.Equal(again.Data, m.Data) || again.Type != m.Type {
				t.Fatalf("re-split message differs: %v", err)
			}
		}
	})
}

// FuzzPrelogin: decoding never panics and Encode∘Decode is a fixed point.
func FuzzPrelogin(f *testing.F) {
	f.Add(capture(f, "prelogin"))
	f.Add(capture(f, "prelogin_freetds"))
	f.Add([]byte{0xFF})
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := DecodePrelogin(in)
		if err != nil {
			return
		}
		p.Encryption()
		p.Version()
		p.MARS()
		enc := p.Encode()
		p2, err := DecodePrelogin(enc)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !bytes.Equal(p2.Encode(), enc) {
			t.Fatal("PRELOGIN encode is not stable")
		}
	})
}

// FuzzLogin7: decoding never panics and Encode∘Decode is a fixed point
// after one pass (invalid UTF-16 becomes U+FFFD on the first).
func FuzzLogin7(f *testing.F) {
	f.Add(capture(f, "login7"))
	f.Add(capture(f, "login7_freetds"))
	withFeat := &Login7{TDSVersion: Version74, PacketSize: 4096, UserName: "u", Password: "p", Features: []Feature{{ID: FeatureFedAuth, Data: []byte{1, 2}}}}
	f.Add(withFeat.Encode())
	f.Fuzz(func(t *testing.T, in []byte) {
		l, err := DecodeLogin7(in)
		if err != nil {
			return
		}
		enc := l.Encode()
		l2, err := DecodeLogin7(enc)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !bytes.Equal(l2.Encode(), enc) {
			t.Fatal("LOGIN7 encode is not stable")
		}
	})
}

// FuzzSQLBatch: decoding never panics and Encode∘Decode is a fixed point.
func FuzzSQLBatch(f *testing.F) {
	f.Add(capture(f, "sqlbatch"))
	f.Add(capture(f, "sqlbatch_freetds"))
	f.Add((&SQLBatch{Headers: TxHeaders(0x0102030405060708, 1), Text: "SELECT 1; DELETE FROM t"}).Encode())
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := DecodeSQLBatch(in)
		if err != nil {
			return
		}
		b.Headers.TransactionDescriptor()
		enc := b.Encode()
		b2, err := DecodeSQLBatch(enc)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !bytes.Equal(b2.Encode(), enc) {
			t.Fatal("SQLBatch encode is not stable")
		}
	})
}

// FuzzRPC: decoding never panics, unknown types are *UnknownTypeError,
// bytes the server may frame otherwise *UnreadableError, and Encode∘Decode
// is a fixed point.
func FuzzRPC(f *testing.F) {
	f.Add(capture(f, "rpc"))
	f.Add(capture(f, "rpc_byname"))
	f.Add(capture(f, "rpc_types"))
	for _, m := range rpcSamples() {
		f.Add(m.Encode())
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := DecodeRPC(in)
		if err != nil {
			var u *UnknownTypeError
			var ur *UnreadableError
			if !errors.Is(err, ErrShort) && !errors.As(err, &u) && !errors.As(err, &ur) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, c := range m.Calls {
			_, vals, _ := c.Statement()
			for _, v := range vals {
				v.Canonical()
			}
		}
		enc := m.Encode()
		m2, err := DecodeRPC(enc)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !bytes.Equal(m2.Encode(), enc) {
			t.Fatalf("RPC encode is not stable:\n%x\n%x", enc, m2.Encode())
		}
	})
}

// FuzzTokens: the Scanner walks any bytes without panicking, every token
// it frames lies inside the input, and the tokens the Sidecar reads decode.
func FuzzTokens(f *testing.F) {
	for _, s := range tokenSamples() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var s Scanner
		for b := in; len(b) > 0; {
			tok, err := s.Next(b)
			if err != nil {
				return
			}
			if len(tok.Raw) == 0 || len(tok.Raw) > len(b) {
				t.Fatalf("token 0x%02X framed %d of %d bytes", tok.Type, len(tok.Raw), len(b))
			}
			switch tok.Type {
			case TokenError, TokenInfo:
				DecodeErrorInfo(tok.Body)
			case TokenEnvChange:
				if e, err := DecodeEnvChange(tok.Body); err == nil {
					e.NewString()
				}
			case TokenLoginAck:
				DecodeLoginAck(tok.Body)
			case TokenDone, TokenDoneProc, TokenDoneInProc:
				if _, err := DecodeDone(tok.Type, tok.Body); err != nil {
					t.Fatalf("framed DONE does not decode: %v", err)
				}
			}
			b = b[len(tok.Raw):]
		}
	})
}
