package mssql

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// answerUse answers the batch "SELECT x; USE otherdb" with stream, then
// the ENVCHANGE of the USE and DONE; the relay's relearn batch too.
func answerUse(stream []byte) func(*tds.SQLBatch) []byte {
	return func(b *tds.SQLBatch) []byte {
		switch b.Text {
		case relearnText:
			return (&tds.Done{}).Append((&tds.ErrorInfo{Number: 50000, State: relearnState, Message: "0 otherdb"}).Append(nil, tds.TokenInfo))
		case "SELECT x; USE otherdb":
			out := append([]byte{}, stream...)
			out = tds.EnvString(tds.EnvDatabase, "otherdb", "hoopdb").Append(out)
			return (&tds.Done{}).Append(out)
		}
		return nil
	}
}

// relearned counts the listener's own batches asking the upstream where
// the session is (session.relearn), which it sends after an answer it
// could not read to its end.
func relearned(f *fixture) int {
	n := 0
	for _, m := range f.up.Received() {
		if b, err := tds.DecodeSQLBatch(m.Data); m.Type == tds.PacketSQLBatch && err == nil && b.Text == relearnText {
			n++
		}
	}
	return n
}

// Tokens a real SQL Server sends that the relay used to copy unread (an
// OFFSET, COMPUTE's ALTMETADATA and ALTROW, a CLR UDT column, a
// DATACLASSIFICATION of either version): the ENVCHANGE of a USE after each
// is read as it passes, so the next statement is decided (and its approval
// filed) in the database it runs in, without asking the upstream again.
func TestEveryTokenBeforeAUseIsRead(t *testing.T) {
	intCol := []tds.Column{{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeIntN, Size: 4}, Name: "id"}}
	alt := &tds.AltMetadata{ID: 1, ByCols: []uint16{1}, Columns: []tds.AltColumn{{Op: 0x4D, Operand: 1, Column: intCol[0]}}}
	udtCol := []tds.Column{{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeUDT, Size: 892,
		UDT: &tds.UDTInfo{DB: "hoopdb", Schema: "sys", Name: "hierarchyid", Assembly: "Microsoft.SqlServer.Types.SqlHierarchyId"}}, Name: "node"}}
	class := &tds.DataClassification{Labels: []tds.SensitivityLabel{{Name: "Confidential", ID: "c"}},
		InfoTypes: []tds.InformationType{{Name: "Financial", ID: "f"}}, Rank: 20,
		Columns: [][]tds.SensitivityProperty{{{Label: 0, InfoType: 0, Rank: 20}}}}
	for _, tc := range []struct {
		name      string
		dataClass byte // the version the upstream acknowledges
		stream    []byte
	}{
		{"offset", 0, (&tds.Offset{Identifier: 1, Len: 8}).Append(nil)},
		{"altmetadata and altrow", 0, (&tds.AltRow{ID: 1, Values: [][]byte{{42, 0, 0, 0}}}).Append(
			alt.Append((&tds.Row{Values: [][]byte{{1, 0, 0, 0}}}).Append((&tds.ColMetadata{Columns: intCol}).Append(nil), intCol)), intCol)},
		{"udt column", 0, (&tds.Row{Values: [][]byte{{0x58}}}).Append((&tds.ColMetadata{Columns: udtCol}).Append(nil), udtCol)},
		{"dataclassification v1", tds.DataClassV1, class.Append(nil, tds.DataClassV1)},
		{"dataclassification v2", tds.DataClassV2, class.Append(nil, tds.DataClassV2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, withBatchAnswer(answerUse(tc.stream)), func(_ *app.ListenerSettings, _ *app.CoreOptions, up *tdstest.Server) {
				up.DataClassification = tc.dataClass
			})
			c := dialRaw(t, f.addr)
			l := agentLogin()
			l.AppName = returnApp
			l.Features = []tds.Feature{{ID: tds.FeatureDataClassif, Data: []byte{tds.DataClassV2}}}
			c.login(l)
			c.send(tds.PacketSQLBatch, (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: "SELECT x; USE otherdb"}).Encode())
			sc := tds.Scanner{Features: tds.Features{DataClassification: tc.dataClass}}
			var types []byte
			for b := c.read().Data; len(b) > 0; {
				tok, err := sc.Next(b)
				if err != nil {
					t.Fatalf("the client reads the relayed answer: %v", err)
				}
				types, b = append(types, tok.Type), b[len(tok.Raw):]
			}
			if types[len(types)-2] != tds.TokenEnvChange {
				t.Fatalf("relayed tokens %x", types)
			}
			c.send(tds.PacketSQLBatch, (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: "DELETE FROM t"}).Encode())
			if e := firstError(t, tokens(t, c.read().Data)); e.Number != 229 {
				t.Fatalf("DELETE: ERROR %d %q", e.Number, e.Message)
			}
			r := f.cp.Records()
			if len(r) != 1 || !strings.Contains(r[0].Statement, "-- database: otherdb") {
				t.Fatalf("the approver sees %q, want the database the DELETE runs in (otherdb)", r)
			}
			if n := relearned(f); n != 0 {
				t.Fatalf("the listener asked the upstream where the session is %d times: the relay did not read the answer", n)
			}
		})
	}
}

// An answer that breaks MS-TDS closes that connection with ERROR 50000
// state 127 (class 20), after the whole tokens before it: a byte that starts
// no token, a token cut by the end of its message (here a UDT column's
// metadata, whose names would swallow the ENVCHANGE after it), a column
// flagged encrypted, an ALTROW of no ALTMETADATA. Nothing after it is
// relayed or decided, and the listener serves other connections.
func TestUnreadableAnswerClosesTheConnection(t *testing.T) {
	for name, stream := range map[string][]byte{
		"unknown token":    {0x42, 0x00, 0x00},
		"cut udt column":   {tds.TokenColMetadata, 1, 0, 0, 0, 0, 0, 0, 0, tds.TypeUDT, 0xFF, 0xFF},
		"encrypted column": {tds.TokenColMetadata, 1, 0, 0, 0, 0, 0, 0x01, 0x08, tds.TypeIntN, 4, 0},
		"orphan altrow":    {tds.TokenAltRow, 9, 0, 4, 1, 0, 0, 0},
		"huge plp chunk past what is held": append(append((&tds.ColMetadata{Columns: []tds.Column{{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeBigVarBinary, Size: tds.MaxLenPLP}}}}).Append(nil),
			tds.TokenRow, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0xFF, 0xFF, 0x7F), make([]byte, 3*maxRowHold)...),
		"huge plp chunk": append((&tds.ColMetadata{Columns: []tds.Column{{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeBigVarBinary, Size: tds.MaxLenPLP}}}}).Append(nil),
			tds.TokenRow, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0xFF, 0xFF, 0x7F, 1, 2, 3),
	} {
		t.Run(name, func(t *testing.T) {
			info := (&tds.ErrorInfo{Number: 1, Message: "before"}).Append(nil, tds.TokenInfo)
			f := newFixture(t, withBatchAnswer(answerUse(append(info, stream...))))
			c := returnClient(t, f)
			c.send(tds.PacketSQLBatch, (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: "SELECT x; USE otherdb"}).Encode())
			data := c.read().Data
			if strings.HasSuffix(name, "past what is held") {
				// The row's start reached the client before it could be
				// known bad (nothing of it is held): the message ends
				// with the ERROR and DONE, and the connection closes.
				tail := errorReply(errUnreadableAnswer.with("x"), tds.TokenDone, false)
				if !bytes.Contains(data, tds.AppendUCS2(nil, "the connection is closed")) || !bytes.HasSuffix(data, tail[len(tail)-13:]) {
					t.Fatalf("the answer ends %x", data[max(0, len(data)-64):])
				}
				if _, err := c.mr.ReadMessage(); !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("after an unreadable answer the connection stayed open: %v", err)
				}
				return
			}
			toks := tokens(t, data)
			last := toks[len(toks)-1]
			if toks[0].Type != tds.TokenInfo || toks[len(toks)-2].Type != tds.TokenError || last.Type != tds.TokenDone ||
				binary.LittleEndian.Uint16(last.Body)&tds.DoneError == 0 {
				t.Fatalf("the client got tokens %+v, want the whole ones before the bad bytes, ERROR, DONE(ERROR)", toks)
			}
			for _, tok := range toks {
				if tok.Type == tds.TokenEnvChange {
					t.Fatal("an ENVCHANGE after the unreadable bytes was relayed")
				}
			}
			if e := firstError(t, toks); e.Number != 50000 || e.State != 127 || e.Class != 20 {
				t.Fatalf("ERROR %d state %d class %d %q", e.Number, e.State, e.Class, e.Message)
			}
			if _, err := c.mr.ReadMessage(); !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("after an unreadable answer the connection stayed open: %v", err)
			}
			other := returnClient(t, f)
			other.send(tds.PacketSQLBatch, (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: "SELECT 1"}).Encode())
			if toks := tokens(t, other.read().Data); toks[len(toks)-1].Type != tds.TokenDone {
				t.Fatalf("another connection: %+v", toks)
			}
		})
	}
}

// A row whose value is larger than the relay holds (10 MiB, past maxCarry)
// is walked as its packets pass, not held, so the ENVCHANGE of a USE after
// it is read there too: no asking the upstream where the session is.
func TestLargeRowBeforeAUseIsRead(t *testing.T) {
	col := []tds.Column{{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeBigVarBinary, Size: tds.MaxLenPLP}, Name: "blob"}}
	nbc := append((&tds.ColMetadata{Columns: col}).Append(nil), tds.TokenNBCRow, 0x00)
	nbc = tds.AppendValue(nbc, col[0].Type, make([]byte, 10<<20))
	f := newFixture(t, withBatchAnswer(answerUse(nbc)))
	c := returnClient(t, f)
	c.mr.MaxMessage = 16 << 20
	c.send(tds.PacketSQLBatch, (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: "SELECT x; USE otherdb"}).Encode())
	if m := c.read(); len(m.Data) != len(nbc)+len(tds.EnvString(tds.EnvDatabase, "otherdb", "hoopdb").Append(nil))+13 {
		t.Fatalf("the client got %d bytes", len(m.Data))
	}
	c.send(tds.PacketSQLBatch, (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: "DELETE FROM t"}).Encode())
	if e := firstError(t, tokens(t, c.read().Data)); e.Number != 229 {
		t.Fatalf("DELETE: ERROR %d %q", e.Number, e.Message)
	}
	if r := f.cp.Records(); len(r) != 1 || !strings.Contains(r[0].Statement, "-- database: otherdb") {
		t.Fatalf("the approver sees %q, want the database the DELETE runs in (otherdb)", r)
	}
	if n := relearned(f); n != 0 {
		t.Fatalf("the listener asked the upstream where the session is %d times: the relay did not read past the row", n)
	}
}

// Always Encrypted is refused at login: with it the upstream's
// COLMETADATA carries a key table and cipher metadata the relay does not
// read, and its parameters are refused anyway.
func TestAlwaysEncryptedLoginRefused(t *testing.T) {
	f := newFixture(t)
	c := dialRaw(t, f.addr)
	l := agentLogin()
	l.Features = []tds.Feature{{ID: tds.FeatureColumnEncryption, Data: []byte{0x01}}}
	e := firstError(t, c.login(l))
	if e.Number != 18456 || !strings.Contains(e.Message, "Always Encrypted") {
		t.Fatalf("login with COLUMNENCRYPTION: ERROR %d %q", e.Number, e.Message)
	}
	if n := len(f.up.Logins()); n != 0 {
		t.Fatalf("the upstream received %d logins", n)
	}
}
