package tdstest_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/microsoft/go-mssqldb"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

var update = flag.Bool("update", false, "rewrite ../testdata/capture/*.bin from go-mssqldb's messages")

// TestGoMSSQLDB connects the real go-mssqldb client (encrypt=disable) to the
// codec-built server and checks what each side decodes from the other.
func TestGoMSSQLDB(t *testing.T) {
	srv := &tdstest.Server{}
	srv.OnBatch = func(b *tds.SQLBatch) []byte {
		switch strings.TrimSpace(b.Text) {
		case "SELECT 1":
			return tdstest.ResultSet([]tds.Column{tdstest.IntColumn("")}, [][][]byte{{tdstest.Int4(1)}}, tds.TokenDone, false)
		case "SELECT name FROM t":
			return tdstest.ResultSet([]tds.Column{tdstest.IntColumn("id"), tdstest.NVarCharColumn("name")},
				[][][]byte{{tdstest.Int4(7), tdstest.NVarChar("héllo ✓")}, {tdstest.Int4(8), nil}}, tds.TokenDone, false)
		case "SELECT * FROM nope":
			out := tdstest.Error(208, 16, "Invalid object name 'nope'.")
			return (&tds.Done{Status: tds.DoneError}).Append(out)
		}
		return (&tds.Done{}).Append(nil)
	}
	srv.OnRPC = func(r *tds.RPC) []byte {
		text, vals, ok := r.Calls[0].Statement()
		if r.Calls[0].ProcName == "BOOM" { // go-mssqldb sends a lone word as a procedure call by name
			out := tdstest.Error(208, 16, "Invalid object name 'nope'.")
			return append(out, (&tds.Done{Token: tds.TokenDoneProc, Status: tds.DoneError}).Append(nil)...)
		}
		if !ok || len(vals) != 2 {
			return append(tdstest.Error(50000, 16, "unexpected rpc"), tdstest.ProcEnd()...)
		}
		sum := int32(binary.LittleEndian.Uint64(pad8(vals[0].Value)) + binary.LittleEndian.Uint64(pad8(vals[1].Value)))
		out := tdstest.ResultSet([]tds.Column{tdstest.IntColumn(""), tdstest.NVarCharColumn("text")},
			[][][]byte{{tdstest.Int4(sum), tdstest.NVarChar(text)}}, tds.TokenDoneInProc, true)
		return append(out, tdstest.ProcEnd()...)
	}
	addr := srv.Start(t)
	dsn := fmt.Sprintf("sqlserver://hoopuser:S3cret%%21pw@%s?database=hoopdb&encrypt=disable&app+name=hoop-approval%%3Dreturn", addr)
	db, err := sql.Open("sqlserver", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()

	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("SELECT 1: %v", err)
	}
	if one != 1 {
		t.Fatalf("SELECT 1 = %d", one)
	}

	rows, err := db.QueryContext(ctx, "SELECT name FROM t")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id int
		var name sql.NullString
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d:%v:%s", id, name.Valid, name.String))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "7:true:héllo ✓,8:false:" {
		t.Fatalf("rows = %v", got)
	}

	for _, q := range []string{"SELECT * FROM nope", "BOOM"} {
		_, err = db.ExecContext(ctx, q)
		if err == nil || !strings.Contains(err.Error(), "Invalid object name 'nope'.") {
			t.Fatalf("%s: error = %v", q, err)
		}
	}

	var sum int
	var text string
	if err := db.QueryRowContext(ctx, "SELECT @p1 + @p2", 1, 2).Scan(&sum, &text); err != nil {
		t.Fatalf("sp_executesql: %v", err)
	}
	if sum != 3 || text != "SELECT @p1 + @p2" {
		t.Fatalf("sp_executesql answer = %d %q", sum, text)
	}

	// What the server decoded from the client.
	logins := srv.Logins()
	if len(logins) != 1 {
		t.Fatalf("logins = %d", len(logins))
	}
	l := logins[0]
	if l.UserName != "hoopuser" || l.Password != "S3cret!pw" || l.Database != "hoopdb" || l.AppName != "hoop-approval=return" {
		t.Fatalf("LOGIN7 decoded user=%q password=%q db=%q app=%q", l.UserName, l.Password, l.Database, l.AppName)
	}
	var batches []string
	var rpc *tds.RPC
	var captures = map[string][]byte{}
	for _, m := range srv.Received() {
		switch m.Type {
		case tds.PacketPrelogin:
			captures["prelogin"] = m.Data
		case tds.PacketLogin7:
			captures["login7"] = m.Data
			l2, err := tds.DecodeLogin7(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			if enc := l2.Encode(); string(enc) != string(m.Data) {
				t.Errorf("LOGIN7 does not re-encode byte for byte:\n got %x\nwant %x", enc, m.Data)
			}
		case tds.PacketSQLBatch:
			captures["sqlbatch"] = m.Data
			b, _ := tds.DecodeSQLBatch(m.Data)
			batches = append(batches, b.Text)
			if _, _, ok := b.Headers.TransactionDescriptor(); !ok {
				t.Errorf("SQLBatch %q has no transaction descriptor header", b.Text)
			}
			if string(b.Encode()) != string(m.Data) {
				t.Errorf("SQLBatch %q does not re-encode byte for byte", b.Text)
			}
		case tds.PacketRPC:
			r, err := tds.DecodeRPC(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			if r.Calls[0].ProcName == "BOOM" {
				captures["rpc_byname"] = m.Data
				continue
			}
			captures["rpc"] = m.Data
			rpc = r
			if string(r.Encode()) != string(m.Data) {
				t.Errorf("RPC does not re-encode byte for byte:\n got %x\nwant %x", r.Encode(), m.Data)
			}
		}
	}
	if strings.Join(batches, "|") != "SELECT 1|SELECT name FROM t|SELECT * FROM nope" {
		t.Fatalf("batches = %q", batches)
	}
	if rpc == nil || len(rpc.Calls) != 1 || rpc.Calls[0].Proc() != tds.ProcExecuteSQL {
		t.Fatalf("rpc = %+v", rpc)
	}
	text, vals, ok := rpc.Calls[0].Statement()
	if !ok || text != "SELECT @p1 + @p2" || len(vals) != 2 {
		t.Fatalf("Statement = %q %d %v", text, len(vals), ok)
	}
	for i, want := range []uint64{1, 2} {
		v := vals[i]
		if v.Name != fmt.Sprintf("@p%d", i+1) || v.Type.Type != tds.TypeIntN || binary.LittleEndian.Uint64(pad8(v.Value)) != want {
			t.Errorf("param %d = %q type 0x%02X value %x", i, v.Name, v.Type.Type, v.Value)
		}
	}
	if string(vals[0].Canonical()) == string(vals[1].Canonical()) {
		t.Errorf("params 1 and 2 have the same canonical bytes")
	}

	if *update {
		for name, data := range captures {
			if err := os.WriteFile(filepath.Join("..", "testdata", "capture", name+".bin"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func pad8(b []byte) []byte {
	out := make([]byte, 8)
	copy(out, b)
	return out
}
