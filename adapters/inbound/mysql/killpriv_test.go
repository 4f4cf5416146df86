package mysql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	gmclient "github.com/go-mysql-org/go-mysql/client"
	gm "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// killRefusing answers every KILL as a server answers a user who does not
// own the thread (ER_KILL_DENIED_ERROR), everything else with one row.
type killRefusing struct{ oneHandler }

func (killRefusing) HandleQuery(q string) (*gm.Result, error) {
	if strings.HasPrefix(strings.ToUpper(q), "KILL") {
		return nil, gm.NewError(gm.ER_KILL_DENIED_ERROR, "You are not owner of thread")
	}
	return oneHandler{}.HandleQuery(q)
}

// A KILL QUERY the upstream refuses (another user's thread) must not end
// that thread's wait for approval: the listener must not let a user cancel
// what the server would not let them cancel.
func TestRefusedKillLeavesAnotherWaitAlone(t *testing.T) {
	s := app.ListenerSettings{Name: "unit", Protocol: "mysql", Mode: app.ModeWait, WaitTimeout: 2 * time.Second, SpendOn: ports.SpendOnSent,
		Upstream:  upstreamStandInWith(t, killRefusing{}),
		Approvals: []domain.ApprovalRule{{Name: "destructive", Match: domain.Match{Actions: []string{"DELETE"}}}}}
	if err := s.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	l := app.NewCore(app.CoreOptions{Sidecar: "unit", CP: fakecp.New(nil)}).Listener(s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); New(nil).Serve(ctx, ln, l) }()
	t.Cleanup(func() { cancel(); l.EndDrain(); <-done })
	addr := ln.Addr().String()

	victim, err := gmclient.Connect(addr, "agent", "pw", "")
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	id := victim.GetConnectionID()
	waited := make(chan error, 1)
	go func() { _, err := victim.Execute("DELETE FROM t"); waited <- err }()
	attacker := agentConn(t, addr)
	for {
		_, err := attacker.ExecContext(context.Background(), "KILL QUERY "+strconv.FormatUint(uint64(id), 10))
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != gm.ER_KILL_DENIED_ERROR {
			t.Fatalf("KILL QUERY: %v, want the upstream's 1095", err)
		}
		select {
		case err := <-waited:
			if strings.Contains(fmt.Sprint(err), "1317") {
				t.Fatalf("a KILL QUERY the upstream refused ended another connection's wait: %v", err)
			}
			return // the wait ended by the listener's wait_timeout, not by the KILL
		case <-time.After(50 * time.Millisecond):
		}
	}
}
