package mssql

import (
	"context"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// A rule whose match names a table (targets) masks a SELECT of it, but a
// T-SQL cursor splits the read in two batches: DECLARE … CURSOR FOR SELECT
// names the table and returns no row, FETCH NEXT FROM c returns the rows
// and names no table, so the rule did not apply to them.
func TestMaskBreakCursorFetch(t *testing.T) {
	m := &domain.Match{Targets: []string{"dbo.customers"}}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	rule := masking.Rule{Name: "cust", Match: m, Columns: []string{"ssn"}, Strategy: masking.Redact}
	cols := []tds.Column{tdstest.NVarCharColumn("ssn")}
	f := newFixture(t, withMasking(t, rule), withBatchAnswer(func(b *tds.SQLBatch) []byte {
		switch strings.TrimSpace(b.Text) {
		case relearnText:
			return (&tds.Done{}).Append((&tds.ErrorInfo{Number: 50000, State: relearnState, Message: "0 hoopdb"}).Append(nil, tds.TokenInfo))
		case "DECLARE c CURSOR FOR SELECT ssn FROM customers", "OPEN c":
			return (&tds.Done{}).Append(nil)
		case "FETCH NEXT FROM c", "SELECT ssn FROM other":
			out := (&tds.ColMetadata{Columns: cols}).Append(nil)
			out = (&tds.Row{Values: [][]byte{tdstest.NVarChar("123456789")}}).Append(out, cols)
			return (&tds.Done{Status: tds.DoneCount, RowCount: 1}).Append(out)
		}
		return nil
	}))
	c := f.conn("")
	for _, q := range []string{"DECLARE c CURSOR FOR SELECT ssn FROM customers", "OPEN c"} {
		if _, err := c.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	got, err := rows(t, c, "FETCH NEXT FROM c")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0][0] != "<REDACTED>" {
		t.Fatalf("FETCH gave %v", got)
	}
	if got, err = rows(t, c, "SELECT ssn FROM other"); err != nil || len(got) != 1 || got[0][0] != "123456789" {
		t.Fatalf("a SELECT of another table: %v %v", got, err)
	}
}

// The API server cursor: sp_cursoropen runs SELECT … FROM customers (and
// is matched by it), but each sp_cursorfetch after it is a request of no
// statement, which got only the rules without a match: a rule whose
// match names the table did not mask the fetched rows.
func TestMaskBreakServerCursorFetch(t *testing.T) {
	m := &domain.Match{Targets: []string{"dbo.customers"}}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	set, err := masking.Compile([]masking.Rule{{Name: "cust", Match: m, Columns: []string{"ssn"}, Strategy: masking.Redact}})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{}
	ls := &app.ListenerSettings{Masking: set}
	open := &unit{parts: []domain.Analysis{{Actions: []string{"SELECT"}, Targets: []string{"customers", "dbo.customers"}}}, cursorOpen: true}
	if s.maskPlan(ls, open) == nil {
		t.Fatal("sp_cursoropen not masked")
	}
	if p := s.maskPlan(ls, &unit{cursorFetch: true}); p == nil || !p.Field("", "ssn").Whole() {
		t.Fatal("sp_cursorfetch of a cursor on customers escaped the rule")
	}
	if s2 := (&session{}); s2.maskPlan(ls, &unit{cursorFetch: true}) != nil {
		t.Fatal("a fetch with no cursor opened was masked")
	}
}
