package tds

import (
	"bytes"
	"encoding/binary"
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
	if out := row.AppendNBC(nil, cols); !bytes.Equal(out, append([]byte{TokenNBCRow}, body...)) {
		t.Fatalf("AppendNBC wrote % x, want the token of % x", out, body)
	}
	// A fixed-size INT can be NULL in an NBCROW (not in a ROW).
	fixed := []Column{{Type: TypeInfo{Type: TypeInt4, Size: 4}}, cols[1]}
	out := (&Row{Values: [][]byte{nil, AppendUCS2(nil, "h")}}).AppendNBC(nil, fixed)
	if row, n, err := DecodeNBCRow(out[1:], fixed); err != nil || n != len(out)-1 || row.Values[0] != nil || DecodeUCS2(row.Values[1]) != "h" {
		t.Fatalf("NBCROW with a NULL INT: %+v %d %v", row, n, err)
	}
}

func TestScannerCannotFrame(t *testing.T) {
	encCol := []byte{TokenColMetadata, 1, 0, 0, 0, 0, 0, 0x01, 0x08, 0x26, 4, 0}
	for name, in := range map[string][]byte{
		"unknown token":               {0x42, 0, 0},
		"encrypted column":            encCol,
		"altrow of no altmetadata":    {TokenAltRow, 7, 0, 4, 1, 0, 0, 0},
		"dataclassif not negotiated":  dataClassV1Vector,
		"dataclassif version 3 acked": {TokenFeatureExtAck, FeatureDataClassif, 2, 0, 0, 0, 3, 1, FeatureTerminator},
		"encrypted returnvalue":       {TokenReturnValue, 0, 0, 0, 1, 0, 0, 0, 0, 0x00, 0x08, 0x26, 4, 0},
	} {
		_, _, err := scanAll(in)
		if !errors.Is(err, ErrCannotFrame) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// Column encryption acknowledged: COLMETADATA carries a CekTable.
	s := Scanner{Features: Features{ColumnEncryption: true}}
	if _, err := s.Next([]byte{TokenColMetadata, 1, 0, 0, 0}); !errors.Is(err, ErrCannotFrame) {
		t.Errorf("COLMETADATA after COLUMNENCRYPTION was acknowledged: %v", err)
	}
	if _, _, err := scanAll([]byte{TokenDone, 0, 0}); !errors.Is(err, ErrShort) {
		t.Errorf("truncated DONE: %v", err)
	}
}

// Byte vectors written from MS-TDS 2.2.7 by hand (not by the codec's
// Append): each is one token the Scanner used to refuse to frame.
var (
	offsetVector = []byte{TokenOffset, 0x01, 0x00, 0x08, 0x00} // Identifier 1, OffsetLen 8
	// COMPUTE SUM(id) BY id: ALTMETADATA (Count 1, Id 1, ByCols 1: column
	// 1; SUM (0x4D) of column 1, INTN(4), no name), then its ALTROW (42).
	altVector = []byte{
		TokenAltMetadata, 0x01, 0x00, 0x01, 0x00, 0x01, 0x01, 0x00,
		0x4D, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x26, 0x04, 0x00,
		TokenAltRow, 0x01, 0x00, 0x04, 0x2A, 0x00, 0x00, 0x00,
	}
	// A CLR UDT column (MAX_BYTE_SIZE 16, db "d", schema "s", type "g",
	// assembly "a", column "c"), then a ROW of a 3-byte PLP value.
	udtVector = []byte{
		TokenColMetadata, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
		TypeUDT, 0x10, 0x00, 0x01, 'd', 0, 0x01, 's', 0, 0x01, 'g', 0, 0x01, 0x00, 'a', 0, 0x01, 'c', 0,
		TokenRow, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x03, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0, 0, 0, 0,
	}
	// DATACLASSIFICATION version 1: one label ("L", "l"), one information
	// type ("I", "i"), one column with one property (label 0, type 0).
	dataClassV1Vector = []byte{
		TokenDataClassif, 0x01, 0x00, 0x01, 'L', 0, 0x01, 'l', 0,
		0x01, 0x00, 0x01, 'I', 0, 0x01, 'i', 0,
		0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	}
	// Version 2: the query's rank (10) and the property's (20) as well.
	dataClassV2Vector = []byte{
		TokenDataClassif, 0x01, 0x00, 0x01, 'L', 0, 0x01, 'l', 0,
		0x01, 0x00, 0x01, 'I', 0, 0x01, 'i', 0, 0x0A, 0, 0, 0,
		0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0, 0, 0,
	}
)

// ackDataClass is a FEATUREEXTACK acknowledging DATACLASSIFICATION version v.
func ackDataClass(v byte) []byte {
	return []byte{TokenFeatureExtAck, FeatureDataClassif, 2, 0, 0, 0, v, 1, FeatureTerminator}
}

// Every token of TDS 7.4 a server sends is framed, and the ENVCHANGE of a
// USE after it is read: none of them hides a database change.
func TestScannerFramesEveryToken(t *testing.T) {
	use := EnvString(EnvDatabase, "otherdb", "hoopdb").Append(nil)
	intCol := (&ColMetadata{Columns: []Column{{Flags: 1, Type: TypeInfo{Type: TypeIntN, Size: 4}, Name: "id"}}}).Append(nil)
	for _, tc := range []struct {
		name   string
		stream []byte
		want   []byte
	}{
		{"offset", offsetVector, []byte{TokenOffset}},
		{"altmetadata, altrow", append(append([]byte{}, intCol...), altVector...), []byte{TokenColMetadata, TokenAltMetadata, TokenAltRow}},
		{"udt column", udtVector, []byte{TokenColMetadata, TokenRow}},
		{"dataclassification v1", append(ackDataClass(1), dataClassV1Vector...), []byte{TokenFeatureExtAck, TokenDataClassif}},
		{"dataclassification v2", append(ackDataClass(2), dataClassV2Vector...), []byte{TokenFeatureExtAck, TokenDataClassif}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append(append(append([]byte{}, tc.stream...), use...), (&Done{}).Append(nil)...)
			got, toks, err := scanAll(in)
			want := append(append([]byte{}, tc.want...), TokenEnvChange, TokenDone)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("tokens %x, %v; want %x", got, err, want)
			}
			e, err := DecodeEnvChange(toks[len(toks)-2].Body)
			if err != nil || e.Type != EnvDatabase || e.NewString() != "otherdb" {
				t.Fatalf("ENVCHANGE after %s: %+v %v", tc.name, e, err)
			}
		})
	}
}

// The decoders read the vectors' fields, and Append writes the same bytes.
func TestNewTokensDecodeAndAppend(t *testing.T) {
	o, err := DecodeOffset(offsetVector[1:])
	if err != nil || *o != (Offset{Identifier: 1, Len: 8}) || !bytes.Equal(o.Append(nil), offsetVector) {
		t.Fatalf("OFFSET %+v %v", o, err)
	}

	am, n, err := DecodeAltMetadata(altVector[1:])
	if err != nil || am.ID != 1 || !reflect.DeepEqual(am.ByCols, []uint16{1}) || len(am.Columns) != 1 ||
		am.Columns[0].Op != 0x4D || am.Columns[0].Operand != 1 || am.Columns[0].Type.Type != TypeIntN {
		t.Fatalf("ALTMETADATA %+v %v", am, err)
	}
	if !bytes.Equal(am.Append(nil), altVector[:1+n]) {
		t.Fatalf("ALTMETADATA Append\n%x\n%x", am.Append(nil), altVector[:1+n])
	}
	rowb := altVector[1+n:]
	ar, m, err := DecodeAltRow(rowb[1:], map[uint16][]Column{1: am.columns()})
	if err != nil || ar.ID != 1 || m != len(rowb)-1 || !bytes.Equal(ar.Values[0], []byte{0x2A, 0, 0, 0}) ||
		!bytes.Equal(ar.Append(nil, am.columns()), rowb) {
		t.Fatalf("ALTROW %+v %d %v", ar, m, err)
	}

	cm, n, err := DecodeColMetadata(udtVector[1:])
	if err != nil || cm.Columns[0].Type.Type != TypeUDT || cm.Columns[0].Type.Size != 16 || !cm.Columns[0].Type.IsPLP() ||
		*cm.Columns[0].Type.UDT != (UDTInfo{DB: "d", Schema: "s", Name: "g", Assembly: "a"}) || cm.Columns[0].Name != "c" {
		t.Fatalf("UDT COLMETADATA %+v %v", cm, err)
	}
	if !bytes.Equal(cm.Append(nil), udtVector[:1+n]) {
		t.Fatalf("UDT COLMETADATA Append\n%x\n%x", cm.Append(nil), udtVector[:1+n])
	}
	row, _, err := DecodeRow(udtVector[2+n:], cm.Columns)
	if err != nil || !bytes.Equal(row.Values[0], []byte{0xAA, 0xBB, 0xCC}) {
		t.Fatalf("UDT ROW %+v %v", row, err)
	}

	if ack := AppendFeatureExtAck(nil, []Feature{{ID: FeatureDataClassif, Data: []byte{2, 1}}}); !bytes.Equal(ack, ackDataClass(2)) {
		t.Fatalf("FEATUREEXTACK %x, want %x", ack, ackDataClass(2))
	}
	for v, vec := range map[byte][]byte{DataClassV1: dataClassV1Vector, DataClassV2: dataClassV2Vector} {
		d, n, err := DecodeDataClassification(vec[1:], v)
		want := &DataClassification{Labels: []SensitivityLabel{{"L", "l"}}, InfoTypes: []InformationType{{"I", "i"}},
			Columns: [][]SensitivityProperty{{{Label: 0, InfoType: 0}}}}
		if v == DataClassV2 {
			want.Rank, want.Columns[0][0].Rank = 10, 20
		}
		if err != nil || n != len(vec)-1 || !reflect.DeepEqual(d, want) || !bytes.Equal(d.Append(nil, v), vec) {
			t.Fatalf("DATACLASSIFICATION v%d %+v %d %v", v, d, n, err)
		}
		// The other version's layout does not read these bytes as a
		// whole token of the same length.
		if _, n2, err := DecodeDataClassification(vec[1:], 3-v); err == nil && n2 == len(vec)-1 {
			t.Fatalf("v%d bytes read whole as v%d", v, 3-v)
		}
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

// A RowWalker walks a row of any size in pieces, allocating nothing and
// keeping none of them, and ends at the row's last byte: here a
// varbinary(max) of 1 MiB in two chunks, a TEXT and an NBCROW bitmap.
func TestRowWalkerHoldsNothing(t *testing.T) {
	cols := []Column{
		{Type: TypeInfo{Type: TypeIntN, Size: 4}},
		{Type: TypeInfo{Type: TypeBigVarBinary, Size: MaxLenPLP}},
		{Type: TypeInfo{Type: TypeText, Size: 1 << 20, Collation: latin1}},
		{Type: TypeInfo{Type: TypeNVarChar, Size: 100, Collation: latin1}},
	}
	row := []byte{0x08} // column 3 NULL
	row = append(row, 4, 1, 0, 0, 0)
	row = binary.LittleEndian.AppendUint64(row, 1<<20)
	for range 2 {
		row = binary.LittleEndian.AppendUint32(row, 1<<19)
		row = append(row, make([]byte, 1<<19)...)
	}
	row = append(row, 0, 0, 0, 0)
	row = AppendValue(row, cols[2].Type, []byte("text"))
	next := append(append([]byte{}, row...), TokenDone)
	if n, err := RowLen(next, cols, true); err != nil || n != len(row) {
		t.Fatalf("RowLen %d %v, want %d", n, err, len(row))
	}
	var total int
	var done bool
	allocs := testing.AllocsPerRun(3, func() {
		w := NewRowWalker(cols, true)
		total, done = 0, false
		for total < len(next) && !done {
			n, d := w.Feed(next[total:min(total+4096, len(next))])
			total, done = total+n, d
		}
	})
	if !done || total != len(row) || allocs > 2 { // the walker and its bitmap's one byte
		t.Fatalf("walked %d of %d bytes, done %v, %v allocations", total, len(row), done, allocs)
	}
}

// MS-TDS 4.12 (Bulk Load) shows a COLMETADATA (one BIT column "c1"), a
// ROW and a DONE as bytes: the Scanner frames them as the spec lays them
// out.
func TestSpecExampleTokens(t *testing.T) {
	spec := []byte{
		0x81, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x32, 0x02, 0x63, 0x00, 0x31, 0x00,
		0xD1, 0x00,
		0xFD, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	}
	got, toks, err := scanAll(spec)
	if err != nil || !reflect.DeepEqual(got, []byte{TokenColMetadata, TokenRow, TokenDone}) || len(toks[1].Raw) != 2 {
		t.Fatalf("tokens %x %v", got, err)
	}
	if n, err := RowLen(toks[1].Body, []Column{{Type: TypeInfo{Type: TypeBit}}}, false); err != nil || n != 1 {
		t.Fatalf("RowLen %d %v", n, err)
	}
}
