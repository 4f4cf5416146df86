package tds

import (
	"errors"
	"reflect"
	"testing"
)

// scanAll returns the token types of b and the first error.
func scanAll(b []byte) ([]byte, []Token, error) {
	var s Scanner
	var types []byte
	var toks []Token
	for len(b) > 0 {
		tok, err := s.Next(b)
		if err != nil {
			return types, toks, err
		}
		types = append(types, tok.Type)
		toks = append(toks, tok)
		b = b[len(tok.Raw):]
	}
	return types, toks, nil
}

func TestScannerFramesResponses(t *testing.T) {
	s := tokenSamples()
	for i, tc := range []struct {
		name string
		want []byte
	}{
		{"login", []byte{TokenEnvChange, TokenInfo, TokenLoginAck, TokenEnvChange, TokenEnvChange, TokenDone}},
		{"result set", []byte{TokenColMetadata, TokenRow, TokenRow, TokenDone, TokenEnvChange, TokenDone}},
		{"error", []byte{TokenError, TokenDone}},
		{"rpc end", []byte{TokenReturnStatus, TokenDoneProc}},
		{"attention", []byte{TokenDone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := scanAll(s[i])
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("tokens %x, %v; want %x", got, err, tc.want)
			}
		})
	}
}

func TestTokensDecode(t *testing.T) {
	s := tokenSamples()
	_, login, _ := scanAll(s[0])
	db, err := DecodeEnvChange(login[0].Body)
	if err != nil || db.Type != EnvDatabase || db.NewString() != "hoopdb" || db.OldString() != "master" {
		t.Fatalf("ENVCHANGE database %+v %v", db, err)
	}
	ack, err := DecodeLoginAck(login[2].Body)
	if err != nil || !reflect.DeepEqual(*ack, LoginAck{Interface: 1, TDSVersion: Version74, ProgName: "Microsoft SQL Server", Major: 16}) {
		t.Fatalf("LOGINACK %+v %v", ack, err)
	}
	ps, _ := DecodeEnvChange(login[3].Body)
	coll, _ := DecodeEnvChange(login[4].Body)
	if ps.NewString() != "4096" || coll.Type != EnvCollation || len(coll.NewValue) != 5 {
		t.Fatalf("packet size %q collation %x", ps.NewString(), coll.NewValue)
	}

	_, rs, _ := scanAll(s[1])
	done, _ := DecodeDone(rs[3].Type, rs[3].Body)
	if done.Status != DoneCount|DoneMore || done.RowCount != 2 {
		t.Fatalf("DONE %+v", done)
	}
	tran, _ := DecodeEnvChange(rs[4].Body)
	if d, ok := tran.Descriptor(); tran.Type != EnvBeginTran || !ok || d != 0x1122334455667788 {
		t.Fatalf("begin tran %+v", tran)
	}
	commit, _ := DecodeEnvChange((&EnvChange{Type: EnvCommitTran, OldValue: le64(7)}).Append(nil)[3:])
	if d, ok := commit.Descriptor(); !ok || d != 7 {
		t.Fatalf("commit %+v", commit)
	}
	cm, _, err := DecodeColMetadata(rs[0].Body)
	if err != nil || len(cm.Columns) != 5 || cm.Columns[1].Name != "name" || !cm.Columns[2].Type.IsPLP() {
		t.Fatalf("COLMETADATA %+v %v", cm, err)
	}
	row, _, err := DecodeRow(rs[1].Body, cm.Columns)
	if err != nil || DecodeUCS2(row.Values[1]) != "a" || DecodeUCS2(row.Values[2]) != "long" {
		t.Fatalf("ROW %+v %v", row, err)
	}
	nulls, _, _ := DecodeRow(rs[2].Body, cm.Columns)
	if nulls.Values[0] != nil || nulls.Values[2] != nil || nulls.Values[4] == nil {
		t.Fatalf("NULL row %+v", nulls)
	}

	_, fail, _ := scanAll(s[2])
	e, err := DecodeErrorInfo(fail[0].Body)
	want := ErrorInfo{Number: 208, State: 1, Class: 16, Message: "Invalid object name 'x'.", ServerName: "srv", Line: 1}
	if err != nil || !reflect.DeepEqual(*e, want) {
		t.Fatalf("ERROR %+v %v", e, err)
	}
	d, _ := DecodeDone(fail[1].Type, fail[1].Body)
	if d.Status&DoneError == 0 {
		t.Fatal("DONE without the error bit")
	}
}

func TestNBCRow(t *testing.T) {
	cols := []Column{{Type: TypeInfo{Type: TypeIntN, Size: 4}}, {Type: TypeInfo{Type: TypeNVarChar, Size: 20, Collation: latin1}}}
	body := []byte{0x01, 2, 0, 'h', 0} // column 0 NULL, column 1 "h"
	row, n, err := DecodeNBCRow(body, cols)
	if err != nil || n != 5 || row.Values[0] != nil || DecodeUCS2(row.Values[1]) != "h" {
		t.Fatalf("NBCROW %+v %d %v", row, n, err)
	}
}

func TestScannerCannotFrame(t *testing.T) {
	udt := []byte{TokenColMetadata, 1, 0, 0, 0, 0, 0, 0, 0, 0xF0, 0, 0}
	for name, in := range map[string][]byte{
		"unknown token": {0x42, 0, 0},
		"altmetadata":   {TokenAltMetadata, 0, 0},
		"udt column":    udt,
	} {
		_, _, err := scanAll(in)
		if !errors.Is(err, ErrCannotFrame) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, _, err := scanAll([]byte{TokenDone, 0, 0}); !errors.Is(err, ErrShort) {
		t.Errorf("truncated DONE: %v", err)
	}
}

func TestErrorTextsAreCut(t *testing.T) {
	long := make([]rune, 300)
	for i := range long {
		long[i] = 'x'
	}
	e := &ErrorInfo{Number: 1, Message: "m", ServerName: string(long)}
	_, toks, err := scanAll(e.Append(nil, TokenError))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := DecodeErrorInfo(toks[0].Body)
	if len(got.ServerName) != 255 {
		t.Fatalf("server name %d chars", len(got.ServerName))
	}
}
