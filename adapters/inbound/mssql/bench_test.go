package mssql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// BenchmarkQueryThroughListener is one go-mssqldb connection's SELECT 1
// round trip (a SQLBatch) and a sp_executesql with one parameter, directly
// against the in-process TDS upstream (tdstest) and through an in-process
// listener (a rule holds DELETE, so every statement is analysed and
// decided). bench/mssql.sh is the end-to-end comparison.
func BenchmarkQueryThroughListener(b *testing.B) {
	f := newFixture(b)
	for _, c := range []struct{ name, addr string }{{"direct", f.upAddr}, {"listener", f.addr}} {
		db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://agent:pw@%s?database=hoopdb&encrypt=disable", c.addr))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		b.Run(c.name+"/batch", func(b *testing.B) {
			var one int
			for b.Loop() {
				if err := db.QueryRow("SELECT 1").Scan(&one); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/executesql", func(b *testing.B) {
			for b.Loop() {
				if _, err := db.ExecContext(context.Background(), "UPDATE t SET x = 1 WHERE id = @p1", 3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLargeResult streams a result of 10,000 rows of 100 characters
// through the listener (the relay copies packets and frames every ROW).
func BenchmarkLargeResult(b *testing.B) {
	row := [][]byte{tdstest.Int4(1), tdstest.NVarChar(strings.Repeat("x", 100))}
	rows := make([][][]byte, 10000)
	for i := range rows {
		rows[i] = row
	}
	answer := tdstest.ResultSet([]tds.Column{tdstest.IntColumn("id"), tdstest.NVarCharColumn("v")}, rows, tds.TokenDone, false)
	f := newFixture(b)
	f.up.OnBatch = func(*tds.SQLBatch) []byte { return answer }
	for _, c := range []struct{ name, addr string }{{"direct", f.upAddr}, {"listener", f.addr}} {
		b.Run(c.name, func(b *testing.B) { largeResult(b, c.addr, answer, len(rows)) })
	}
}

func largeResult(b *testing.B, addr string, answer []byte, want int) {
	db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://agent:pw@%s?encrypt=disable", addr))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		r, err := db.Query("SELECT id, v FROM big")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r.Next() {
			n++
		}
		if err := r.Err(); err != nil || n != want {
			b.Fatalf("%d rows, %v", n, err)
		}
	}
}

// BenchmarkLargeValue is one NVARCHAR(MAX) value of 2 MB and of 8 MB (both
// walked by the relay, past maxRowHold, without holding them), directly
// and through the listener.
func BenchmarkLargeValue(b *testing.B) {
	col := tds.Column{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeNVarChar, Size: tds.MaxLenPLP, Collation: [5]byte{0x09, 0x04, 0xD0, 0x00, 0x34}}, Name: "v"}
	for _, mb := range []int{2, 8} {
		answer := tdstest.ResultSet([]tds.Column{col}, [][][]byte{{tdstest.NVarChar(strings.Repeat("x", mb<<19))}}, tds.TokenDone, false)
		f := newFixture(b)
		f.up.OnBatch = func(q *tds.SQLBatch) []byte {
			if q.Text == relearnText { // were an answer copied unread
				return f.onBatch(q)
			}
			return answer
		}
		for _, c := range []struct{ name, addr string }{{"direct", f.upAddr}, {"listener", f.addr}} {
			b.Run(fmt.Sprintf("%dMB/%s", mb, c.name), func(b *testing.B) { largeResult(b, c.addr, answer, 1) })
		}
	}
}
