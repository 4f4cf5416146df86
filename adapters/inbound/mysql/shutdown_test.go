package mysql

import (
	"context"
	"database/sql"
	"encoding/binary"
	"net"
	"testing"
	"time"

	gmclient "github.com/go-mysql-org/go-mysql/client"
	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/internal/drain"
)

// mariaDB is the local MariaDB this machine runs (root, no password).
const mariaDB = "127.0.0.1:3306"

// stallQuery marks the queries of the clients that stop reading, so the
// test finds them in MariaDB's processlist: 512 MiB of result.
const stallQuery = "SELECT /* gatecall-stall */ REPEAT('x', 1048576) FROM mysql.seq_1_to_512"

// At the drain deadline, clients that stopped reading in the middle of a
// large result (the listener's writes to them block) do not delay the ERR
// 1053 of a client that reads: every session is told at once, and each
// write of a shutdown message has a deadline.
func TestStalledClientDoesNotDelayAnothersShutdownError(t *testing.T) {
	direct, err := sql.Open("mysql", "root@tcp("+mariaDB+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if err := direct.Ping(); err != nil {
		t.Skipf("no local MariaDB at %s: %v", mariaDB, err)
	}
	addr, l, stop := serveListener(t, mariaDB, 0)

	// The client that reads: idle inside a transaction, so the drain keeps it
	// until the deadline.
	reader, err := gmclient.Connect(addr, "root", "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, err := reader.Execute("BEGIN"); err != nil {
		t.Fatal(err)
	}

	// Clients that stop reading: a small receive buffer and a result of
	// 512 MiB they never read. Several, so that (map order being random) the
	// old one-at-a-time drain reaches one of them first almost always.
	const stalled = 4
	smallBuffer := func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, address)
		if err == nil {
			c.(*net.TCPConn).SetReadBuffer(4096)
		}
		return c, err
	}
	for range stalled {
		c, err := gmclient.ConnectWithDialer(context.Background(), "tcp", addr, "root", "", "", smallBuffer)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.ResetSequence()
		if err := c.WritePacket(append([]byte{0, 0, 0, 0, gm.COM_QUERY}, stallQuery...)); err != nil {
			t.Fatal(err)
		}
	}
	// Each stalled query blocks in MariaDB once every buffer on its way to
	// the client is full: the listener's write to the client blocks first.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		err := direct.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%gatecall-stall%' " +
			"AND INFO NOT LIKE '%PROCESSLIST%' AND STATE = 'Writing to net'").Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == stalled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d stalled queries blocked on the network after 30 s", n, stalled)
		}
	}

	stop()
	start := time.Now()
	l.EndDrain()
	reader.SetReadDeadline(time.Now().Add(10 * time.Second))
	reader.ResetSequence()
	p, err := reader.ReadPacket()
	took := time.Since(start)
	if err != nil || len(p) < 3 || p[0] != 0xff || binary.LittleEndian.Uint16(p[1:]) != gm.ER_SERVER_SHUTDOWN {
		t.Fatalf("the reading client got %q %v %v after the drain deadline, want ERR 1053", p, err, took)
	}
	if took >= drain.ShutdownWrite {
		t.Fatalf("the reading client's ERR 1053 came %v after the drain deadline, want it at once (< %v)", took, drain.ShutdownWrite)
	}
}
