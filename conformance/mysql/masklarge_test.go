package mysqlconf

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A result of 1,000,000 rows, every one with an email, streams through a
// masking listener: each row arrives masked and the Sidecar's peak memory
// stays far below the result's size (no result is buffered).
func TestMaskStreamsMillionRows(t *testing.T) {
	t.Setenv("HOOP_TEST_MASK_KEY", "0123456789abcdef-test-key")
	e := newEnv(t)
	addr, sc := e.sidecar(listenerOpts{masking: piiRule, masks: "[pii]"})
	c := e.conn(addr, "", nil)
	if err := c.PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := procStatus(t, sc.PID(), "VmHWM:")
	rows, err := c.QueryContext(context.Background(),
		"SELECT CONCAT('user', seq, '@example.com ', REPEAT('x', 60)) AS contact FROM seq_1_to_1000000")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(v, "@example.com") {
			t.Fatalf("row %d in clear: %q", n, v)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 1_000_000 {
		t.Fatalf("%d rows, %v", n, err)
	}
	// The result is about 90 MB; the Sidecar's peak resident memory grows
	// by less than a third of it.
	hwm := procStatus(t, sc.PID(), "VmHWM:")
	t.Logf("Sidecar peak RSS %d MiB before the result, %d MiB after", before>>20, hwm>>20)
	if hwm-before > 30<<20 {
		t.Errorf("Sidecar peak RSS grew from %d to %d MiB for a masked 90 MB result", before>>20, hwm>>20)
	}
}

// A row of 16 MiB or more (several packets) is not rewritten: under a
// strict rule the result ends with an ERR, and the connection answers the
// next statement.
func TestMaskRowOver16MiBIsRefused(t *testing.T) {
	t.Setenv("HOOP_TEST_MASK_KEY", "0123456789abcdef-test-key")
	e := newEnv(t)
	e.raisePacketLimit(64 << 20)
	addr, _ := e.sidecar(listenerOpts{masking: piiRule, masks: "[pii]"})
	c := e.conn(addr, "", func(cfg *mysql.Config) { cfg.MaxAllowedPacket = 64 << 20 })
	ctx := context.Background()
	var v string
	err := c.QueryRowContext(ctx, "SELECT CONCAT('alice@example.com ', REPEAT('x', 17 << 20)) AS big").Scan(&v)
	if me := myErr(t, err, 1105); !strings.Contains(me.Message, "16 MiB") {
		t.Errorf("message %q", me.Message)
	}
	if err := c.QueryRowContext(ctx, "SELECT 'bob@example.com' AS y").Scan(&v); err != nil || v != "***@*******.***" {
		t.Errorf("next statement: %q %v", v, err)
	}
}

// procStatus reads a size field (kB) of /proc/<pid>/status, in bytes.
func procStatus(t *testing.T, pid int, field string) int {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
