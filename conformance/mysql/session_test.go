package mysqlconf

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"strconv"
	"testing"
	"time"

	gmclient "github.com/go-mysql-org/go-mysql/client"
	gm "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/packet"

	"github.com/hoophq/sidecar/conformance/harness"
)

// With an mcp block, the denial is the spec's MCP variant (the id first,
// naming approval_wait), and approval_status over MCP reads the approval.
func TestMCPVariantAndStatusOverMCP(t *testing.T) {
	e := newEnv(t)
	mcpAddr := harness.FreeAddr(t)
	addr, _ := e.sidecar(listenerOpts{mcp: mcpAddr})
	e.direct("CREATE TABLE t (id int)")
	_, err := e.conn(addr, "", nil).ExecContext(context.Background(), "DROP TABLE t")
	id := heldID(t, err)
	me := myErr(t, err, 1227)
	want := "approval " + id + ": waiting for approval; call the MCP tool approval_wait with the approval id, then resend the identical statement once it is approved (statement held for human approval)"
	if me.Message != want {
		t.Fatalf("denial %q\nwant     %q", me.Message, want)
	}
	m := harness.MCPApprovalStatus(t, mcpAddr, id)
	if m["id"] != id || m["status"] != "PENDING" || m["next"] != "wait" {
		t.Fatalf("approval_status answered %v", m)
	}
}

// In wait mode the statement waits for a person; KILL QUERY of that
// connection through the listener ends the wait with 1317 (the approval
// stays PENDING), and a client that hangs up while it waits ends its wait:
// the Sidecar stops reading the approval.
func TestWaitEndsOnKillQueryAndOnHangUp(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{mode: "wait"})
	e.direct("CREATE TABLE t (id int); INSERT INTO t VALUES (1)")
	ctx := context.Background()
	a, b := e.conn(addr, "", nil), e.conn(addr, "", nil)
	var id int64
	a.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id)
	done := make(chan error, 1)
	go func() { _, err := a.ExecContext(ctx, "DELETE FROM t"); done <- err }()
	approval := e.pending(t, 1)
	if _, err := b.ExecContext(ctx, "KILL QUERY "+itoa(id)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		myErr(t, err, 1317)
	case <-time.After(20 * time.Second):
		t.Fatal("KILL QUERY did not end the wait")
	}
	if st := e.cp.Review(t, approval).Status; st != "PENDING" {
		t.Fatalf("approval %s after the killed wait, want PENDING", st)
	}

	c := e.conn(addr, "", nil)
	cctx, cancel := context.WithCancel(ctx)
	go func() { c.ExecContext(cctx, "DELETE FROM t WHERE id > 0") }()
	gone := e.pending(t, 2)
	cancel() // go-sql-driver closes the connection
	reads := e.cp.QuietReads(t, gone, 5*time.Second)
	e.cp.ApproveAndExpectNoReads(t, gone, reads)
	if e.count("SELECT count(*) FROM t") != 1 {
		t.Fatal("a statement whose client hung up ran")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// pending waits until the Control Plane holds n approval requests and
// returns the newest PENDING one's id.
func (e *env) pending(t *testing.T, n int) string {
	t.Helper()
	for range 400 {
		if rs := e.cp.Reviews(t); len(rs) >= n && rs[0].Status == "PENDING" {
			return rs[0].ID
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %d approval requests", n)
	return ""
}

// A command the listener does not relay gets ERR 1047 and the connection
// stays usable; a malformed handshake response gets ERR 1835 and only that
// connection ends.
func TestUnknownCommandAndMalformedPacket(t *testing.T) {
	e := newEnv(t)
	addr, sc := e.sidecar(listenerOpts{})
	c, err := gmclient.Connect(addr, e.up.user, e.up.password, e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.ResetSequence()
	if err := c.WritePacket([]byte{0, 0, 0, 0, 0xee, 1, 2}); err != nil {
		t.Fatal(err)
	}
	p, err := c.ReadPacket()
	if err != nil || len(p) < 3 || p[0] != 0xff || p[1] != 0x17 || p[2] != 0x04 { // 1047
		t.Fatalf("unknown command answered %v %v", p, err)
	}
	if r, err := c.Execute("SELECT 1"); err != nil || len(r.Values) != 1 {
		t.Fatalf("the connection is not usable after an unknown command: %v", err)
	}

	malformed(t, addr)
	sc.WaitFor(t, "broke the protocol", 10*time.Second)
	if r, err := c.Execute("SELECT 2"); err != nil || len(r.Values) != 1 {
		t.Fatalf("another connection suffered from a malformed one: %v", err)
	}
}

// malformed reads the listener's handshake on a raw connection and answers
// it with a handshake response of a client without the 4.1 protocol; it
// fails the test unless ERR 1835 comes back and the connection ends.
func malformed(t *testing.T, addr string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	pc := packet.NewConn(conn)
	if _, err := pc.ReadPacket(); err != nil {
		t.Fatal(err)
	}
	if err := pc.WritePacket(append(make([]byte, 4), bytes.Repeat([]byte{0x01}, 40)...)); err != nil {
		t.Fatal(err)
	}
	p, err := pc.ReadPacket()
	if err != nil || len(p) < 3 || p[0] != 0xff || binary.LittleEndian.Uint16(p[1:]) != gm.ER_MALFORMED_PACKET {
		t.Fatalf("a malformed handshake response got %q %v, want ERR 1835", p, err)
	}
	if _, err := pc.ReadPacket(); err == nil {
		t.Fatal("the connection stayed open after the malformed packet")
	}
}
