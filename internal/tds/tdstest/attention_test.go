package tdstest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// TestGoMSSQLDBAttention cancels a running batch: go-mssqldb sends Attention,
// the server answers DONE(ATTN), and the connection serves the next query.
func TestGoMSSQLDBAttention(t *testing.T) {
	running := make(chan struct{}, 1)
	srv := &tdstest.Server{OnBatch: func(b *tds.SQLBatch) []byte {
		if strings.HasPrefix(b.Text, "WAITFOR") {
			running <- struct{}{}
			return nil // answered only by the Attention
		}
		return tdstest.ResultSet([]tds.Column{tdstest.IntColumn("")}, [][][]byte{{tdstest.Int4(1)}}, tds.TokenDone, false)
	}}
	db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://u:p@%s?encrypt=disable", srv.Start(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-running; cancel() }()
	_, err = db.ExecContext(ctx, "WAITFOR DELAY '00:00:10'")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled batch: err = %v", err)
	}
	var one int
	if err := db.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after attention: %d %v", one, err)
	}
	var attn int
	for _, m := range srv.Received() {
		if tds.IsAttention(m) {
			attn++
		}
	}
	// go-mssqldb sends a second Attention when its cancel races the
	// answer's end (token.go nextToken, called again on the cancelled
	// context): one or two are both the driver's own.
	if attn < 1 || attn > 2 {
		t.Fatalf("server received %d Attention messages, want 1 or 2", attn)
	}
}

// TestGoMSSQLDBPacketSize negotiates the minimum packet size (512) so a
// long batch arrives in several packets, and answers with a result that
// the writer splits the same way.
func TestGoMSSQLDBPacketSize(t *testing.T) {
	long := strings.Repeat("x", 3000)
	srv := &tdstest.Server{OnBatch: func(b *tds.SQLBatch) []byte {
		return tdstest.ResultSet([]tds.Column{tdstest.NVarCharColumn("t")}, [][][]byte{{tdstest.NVarChar(b.Text)}}, tds.TokenDone, false)
	}}
	db, err := sql.Open("sqlserver", fmt.Sprintf("sqlserver://u:p@%s?encrypt=disable&packet+size=512", srv.Start(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := "SELECT '" + long + "'"
	var echoed string
	if err := db.QueryRow(q).Scan(&echoed); err != nil {
		t.Fatal(err)
	}
	if echoed != q {
		t.Fatalf("echo of %d chars came back as %d", len(q), len(echoed))
	}
	if l := srv.Logins(); len(l) != 1 || l[0].PacketSize != 512 {
		t.Fatalf("LOGIN7 packet size = %+v", l)
	}
}
