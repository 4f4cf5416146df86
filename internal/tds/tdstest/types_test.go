package tdstest_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-sql/civil"
	mssql "github.com/microsoft/go-mssqldb"
	"github.com/shopspring/decimal"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// TestGoMSSQLDBParamTypes sends one parameter of each type go-mssqldb maps
// from Go values and checks the codec decodes each with the TYPE_INFO the
// client chose and the value bytes it wrote.
func TestGoMSSQLDBParamTypes(t *testing.T) {
	var got *tds.RPC
	var raw []byte
	srv := &tdstest.Server{OnRPC: func(r *tds.RPC) []byte {
		got = r
		return append(tdstest.ResultSet([]tds.Column{tdstest.IntColumn("")}, [][][]byte{{tdstest.Int4(int32(len(r.Calls[0].Params)))}}, tds.TokenDoneInProc, true), tdstest.ProcEnd()...)
	}}
	db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://u:p@%s?encrypt=disable", srv.Start(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ts := time.Date(2026, 12, 1, 5, 30, 0, 123000000, time.UTC)
	long := strings.Repeat("é", 5000)
	args := []struct {
		v    any
		typ  byte
		want []byte // nil: only the type is checked
	}{
		{int64(1), tds.TypeIntN, []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{int32(-2), tds.TypeIntN, nil},
		{true, tds.TypeBitN, []byte{1}},
		{3.5, tds.TypeFltN, nil},
		{float32(1.25), tds.TypeFltN, nil},
		{"text ✓", tds.TypeNVarChar, tds.AppendUCS2(nil, "text ✓")},
		{long, tds.TypeNVarChar, tds.AppendUCS2(nil, long)},
		{mssql.VarChar("ascii"), tds.TypeBigVarChar, []byte("ascii")},
		{mssql.NVarCharMax("m"), tds.TypeNVarChar, tds.AppendUCS2(nil, "m")},
		{[]byte{0xDE, 0xAD}, tds.TypeBigVarBinary, []byte{0xDE, 0xAD}},
		{ts, tds.TypeDateTimeOffset, nil},
		{mssql.DateTime1(ts), tds.TypeDateTimeN, nil},
		{civil.DateOf(ts), tds.TypeDateN, nil},
		{civil.TimeOf(ts), tds.TypeTimeN, nil},
		{civil.DateTimeOf(ts), tds.TypeDateTime2N, nil},
		{decimal.RequireFromString("1.5"), tds.TypeNVarChar, tds.AppendUCS2(nil, "1.5")}, // a Valuer: sent as its string
		{mssql.UniqueIdentifier{1, 2, 3}, tds.TypeGUID, nil},
		{sql.NullInt64{}, tds.TypeIntN, nil},
	}
	var vals []any
	var ph []string
	for i, a := range args {
		vals = append(vals, a.v)
		ph = append(ph, fmt.Sprintf("@p%d", i+1))
	}
	query := "SELECT " + strings.Join(ph, ", ")
	var n int
	if err := db.QueryRow(query, vals...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	text, params, ok := got.Calls[0].Statement()
	if !ok || text != query || len(params) != len(args) || n != len(args)+2 {
		t.Fatalf("statement %q with %d values (server counted %d)", text, len(params), n)
	}
	for i, a := range args {
		p := params[i]
		if p.Type.Type != a.typ {
			t.Errorf("%T: type 0x%02X, want 0x%02X", a.v, p.Type.Type, a.typ)
		}
		if a.want != nil && string(p.Value) != string(a.want) {
			t.Errorf("%T: value %x, want %x", a.v, p.Value, a.want)
		}
	}
	if params[len(params)-1].Value != nil {
		t.Errorf("NULL parameter decoded as %x", params[len(params)-1].Value)
	}
	for _, m := range srv.Received() {
		if m.Type == tds.PacketRPC {
			raw = m.Data
		}
	}
	if string(got.Encode()) != string(raw) {
		e := got.Encode()
		i := 0
		for i < len(e) && i < len(raw) && e[i] == raw[i] {
			i++
		}
		t.Errorf("RPC with every type does not re-encode byte for byte: from byte %d of %d/%d:\n%x\n%x", i, len(e), len(raw), e[i:min(i+40, len(e))], raw[i:min(i+40, len(raw))])
	}
	if *update {
		if err := os.WriteFile(filepath.Join("..", "testdata", "capture", "rpc_types.bin"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
