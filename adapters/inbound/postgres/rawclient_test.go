package postgres

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// rawClient speaks PostgreSQL messages one by one to the listener, for
// sequences no driver sends.
type rawClient struct {
	t  testing.TB
	c  net.Conn
	fe *pgproto3.Frontend
}

// raw connects to the listener as postgres and reads up to the first
// ReadyForQuery.
func (f *fixture) raw() *rawClient {
	f.t.Helper()
	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { c.Close() })
	rc := &rawClient{t: f.t, c: c, fe: pgproto3.NewFrontend(c, c)}
	rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "postgres", "database": f.db}})
	rc.untilReady()
	return rc
}

func (rc *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	rc.t.Helper()
	for _, m := range msgs {
		rc.fe.Send(m)
	}
	if err := rc.fe.Flush(); err != nil {
		rc.t.Fatal(err)
	}
}

// untilReady reads up to a ReadyForQuery and sums up what came: E[code
// message] for errors, C[tag], 1/2/3 for Parse/Bind/CloseComplete, then
// Z and the transaction status.
func (rc *rawClient) untilReady() string {
	rc.t.Helper()
	rc.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	var b strings.Builder
	for {
		m, err := rc.fe.Receive()
		if err != nil {
			rc.t.Fatalf("receive: %v (so far: %s)", err, b.String())
		}
		switch v := m.(type) {
		case *pgproto3.ErrorResponse:
			b.WriteString("E[" + v.Code + " " + v.Message + "] ")
		case *pgproto3.CommandComplete:
			b.WriteString("C[" + string(v.CommandTag) + "] ")
		case *pgproto3.ParseComplete:
			b.WriteString("1 ")
		case *pgproto3.BindComplete:
			b.WriteString("2 ")
		case *pgproto3.CloseComplete:
			b.WriteString("3 ")
		case *pgproto3.ReadyForQuery:
			b.WriteString("Z" + string(v.TxStatus))
			return b.String()
		}
	}
}

// q sends one simple Query and returns untilReady's summary.
func (rc *rawClient) q(sql string) string {
	rc.t.Helper()
	rc.send(&pgproto3.Query{String: sql})
	return rc.untilReady()
}
