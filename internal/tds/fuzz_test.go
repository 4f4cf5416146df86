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
// The first byte is the DATACLASSIFICATION version the login acknowledged
// (mod 3); OFFSET re-encodes to its bytes, and ALTMETADATA and
// DATACLASSIFICATION Append∘Decode is a fixed point after one pass.
func FuzzTokens(f *testing.F) {
	for _, s := range tokenSamples() {
		f.Add(append([]byte{0}, s...))
	}
	intCol := (&ColMetadata{Columns: []Column{{Flags: 1, Type: TypeInfo{Type: TypeIntN, Size: 4}, Name: "id"}}}).Append(nil)
	use := EnvString(EnvDatabase, "otherdb", "hoopdb").Append(nil)
	for _, v := range [][]byte{
		append([]byte{0}, offsetVector...),
		append(append([]byte{0}, intCol...), altVector...),
		append([]byte{0}, udtVector...),
		append(append([]byte{0}, ackDataClass(1)...), dataClassV1Vector...),
		append(append([]byte{2}, dataClassV2Vector...), use...),
		append([]byte{1}, dataClassV1Vector...),
	} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		s := Scanner{Features: Features{DataClassification: in[0] % 3}}
		for b := in[1:]; len(b) > 0; {
			version := s.Features.DataClassification
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
			case TokenOffset:
				if o, err := DecodeOffset(tok.Body); err != nil || !bytes.Equal(o.Append(nil), tok.Raw) {
					t.Fatalf("OFFSET %x: %v", tok.Raw, err)
				}
			case TokenDataClassif:
				d, _, err := DecodeDataClassification(tok.Body, version)
				if err != nil {
					t.Fatalf("framed DATACLASSIFICATION does not decode: %v", err)
				}
				enc := d.Append(nil, version) // invalid UTF-16 becomes U+FFFD on the first pass
				d2, _, err := DecodeDataClassification(enc[1:], version)
				if err != nil || !bytes.Equal(d2.Append(nil, version), enc) {
					t.Fatalf("DATACLASSIFICATION v%d encode is not stable: %x: %v", version, enc, err)
				}
			case TokenAltMetadata:
				am, _, err := DecodeAltMetadata(tok.Body)
				if err != nil {
					t.Fatalf("framed ALTMETADATA does not decode: %v", err)
				}
				enc := am.Append(nil)
				am2, _, err := DecodeAltMetadata(enc[1:])
				if !hasXML(am) && (err != nil || !bytes.Equal(am2.Append(nil), enc)) {
					t.Fatalf("ALTMETADATA encode is not stable: %x: %v", enc, err)
				}
			}
			b = b[len(tok.Raw):]
		}
	})
}

// hasXML: an XML column's schema names are not kept, so its TYPE_INFO does
// not re-encode byte for byte.
func hasXML(am *AltMetadata) bool {
	for _, c := range am.Columns {
		if c.Type.Type == TypeXML {
			return true
		}
	}
	return false
}

// walkColumns are the column lists FuzzRowWalker types rows by: every
// value layout of TYPE_VARBYTE (fixed, BYTELEN with and without the 0xFF
// NULL, USHORTLEN, LONGLEN, TEXT's pointer, PLP).
func walkColumns() [][]Column {
	nv := TypeInfo{Type: TypeNVarChar, Size: 100, Collation: latin1}
	return [][]Column{
		tokenColumns(),
		{{Type: TypeInfo{Type: TypeInt4}}, {Type: TypeInfo{Type: TypeVarChar, Size: 10}}, {Type: TypeInfo{Type: TypeGUID, Size: 16}}, {Type: nv}},
		{{Type: TypeInfo{Type: TypeText, Size: 1 << 20, Collation: latin1}}, {Type: TypeInfo{Type: TypeVariant, Size: 8016}}, {Type: TypeInfo{Type: TypeImage}}},
		{{Type: TypeInfo{Type: TypeBigVarBinary, Size: MaxLenPLP}}, {Type: TypeInfo{Type: TypeUDT, Size: 16, UDT: &UDTInfo{}}}, {Type: TypeInfo{Type: TypeXML, Size: MaxLenPLP}}},
	}
}

// tokenColumns are the columns of tokenSamples' result set.
func tokenColumns() []Column {
	_, toks, _ := scanAll(tokenSamples()[1])
	cm, _, _ := DecodeColMetadata(toks[0].Body)
	return cm.Columns
}

// FuzzRowWalker: RowLen (a RowWalker's walk) measures what DecodeRow and
// DecodeNBCRow (readValue) read, and a walk fed in pieces of any sizes ends
// at the same byte. in[0] picks the columns and ROW or NBCROW, in[1] the
// piece size.
func FuzzRowWalker(f *testing.F) {
	cols := walkColumns()
	for i, c := range cols {
		vals := make([][]byte, len(c))
		for j := range c {
			if j%2 == 0 {
				vals[j] = []byte{1, 2, 3, 4}[:sizeFor(c[j].Type)]
			}
		}
		row := (&Row{Values: vals}).Append(nil, c)[1:]
		f.Add(append([]byte{byte(2 * i), 3}, row...))
		f.Add(append([]byte{byte(2*i + 1), 1, 0x05}, row...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		c, nbc, piece, b := cols[int(in[0]/2)%len(cols)], in[0]%2 == 1, int(in[1])+1, in[2:]
		var want int
		var werr error
		if nbc {
			_, want, werr = DecodeNBCRow(b, c)
		} else {
			_, want, werr = DecodeRow(b, c)
		}
		got, err := RowLen(b, c, nbc)
		if (err == nil) != (werr == nil) || err == nil && got != want {
			t.Fatalf("RowLen %d %v, DecodeRow %d %v", got, err, want, werr)
		}
		if err != nil && !errors.Is(err, ErrShort) {
			t.Fatalf("RowLen error %v", err)
		}
		w := NewRowWalker(c, nbc)
		total, done := 0, false
		for total < len(b) && !done {
			n, d := w.Feed(b[total:min(total+piece, len(b))])
			total, done = total+n, d
		}
		if done != (err == nil) || done && total != got {
			t.Fatalf("walk in pieces of %d: %d done %v; RowLen %d %v", piece, total, done, got, err)
		}
	})
}

// sizeFor is a value length valid for ti's fixed size (4 otherwise).
func sizeFor(ti TypeInfo) int {
	if n, ok := fixedSize(ti.Type); ok {
		return min(n, 4)
	}
	return 4
}
