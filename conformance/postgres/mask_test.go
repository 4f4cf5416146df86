package postgres

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// maskConfig is a Sidecar with one postgres listener and three masking
// rules: pii (the nine entities, mask), cards (column card_number, partial,
// last 4) and emails (column email, hash with the key in HOOP_MASK_KEY).
func (e *env) maskConfig(listen, _ string) string {
	return fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
log: {format: text, level: info}
audit: {file: "-"}
masking_rules:
  - name: cards
    columns: [card_number]
    strategy: partial
    keep_last: 4
  - name: emails
    columns: [email]
    strategy: hash
    key_env: HOOP_MASK_KEY
  - name: pii
    entities: [EMAIL_ADDRESS, CREDIT_CARD, IBAN_CODE, US_SSN, PHONE_NUMBER, IP_ADDRESS, AWS_ACCESS_KEY, JWT, PRIVATE_KEY]
    strategy: mask
listeners:
  - name: pg
    protocol: postgres
    listen: %s
    upstream: %s
    masking_rules: [cards, emails, pii]
`, e.cp.URL, listen, e.upstream)
}

var hex32 = regexp.MustCompile(`\b[0-9a-f]{32}\b`)

// psql through a listener with masking rules: entities masked by the
// mask strategy, the Luhn-failing number left, a partial column, a hash
// equal on two connections and on two Sidecar processes with one key, the
// "masked" audit line with counts per rule; directly, psql prints all in
// clear.
func TestMaskPsql(t *testing.T) {
	t.Setenv("HOOP_MASK_KEY", "a masking key of more than 16 bytes")
	e := newEnv(t)
	addr, sc := e.sidecarProcess(e.maskConfig, "")
	query := "SELECT 'alice@example.com' AS contact, '4111 1111 1111 1111' AS card, '4111 1111 1111 1112' AS other;\n"

	out := e.psql(addr, "", query)
	if strings.Contains(out, "alice@example.com") || strings.Contains(out, "4111 1111 1111 1111") {
		t.Fatalf("psql through the Sidecar printed a value in clear:\n%s", out)
	}
	if !strings.Contains(out, "*****@*******.***") || !strings.Contains(out, "**** **** **** ****") ||
		!strings.Contains(out, "4111 1111 1111 1112") {
		t.Fatalf("psql through the Sidecar:\n%s", out)
	}
	direct := e.psql(e.upstream, "", query)
	if !strings.Contains(direct, "alice@example.com") || !strings.Contains(direct, "4111 1111 1111 1111") {
		t.Fatalf("psql directly:\n%s", direct)
	}
	sc.WaitFor(t, `"decision":"masked"`, 10*time.Second)
	if !strings.Contains(sc.Output(), `"masked":{"pii":2}`) {
		t.Fatalf("no masked audit line with pii: 2:\n%s", sc.Output())
	}

	out = e.psql(addr, "", "SELECT '4111111111111111' AS card_number;\n")
	if !strings.Contains(out, "************1111") {
		t.Fatalf("partial column:\n%s", out)
	}

	hashOf := func(addr string) string {
		t.Helper()
		out := e.psql(addr, "", "SELECT 'alice@example.com' AS email;\n")
		h := hex32.FindString(out)
		if h == "" || strings.Contains(out, "alice") {
			t.Fatalf("hash column:\n%s", out)
		}
		return h
	}
	first := hashOf(addr)
	if again := hashOf(addr); again != first {
		t.Fatalf("two connections: %s and %s", first, again)
	}
	other, _ := e.sidecarProcess(e.maskConfig, "")
	if h := hashOf(other); h != first {
		t.Fatalf("two Sidecar processes with one key: %s and %s", first, h)
	}
}

// A 1,000,000-row result through a masking rule streams: every row is
// masked and the Sidecar's peak resident memory stays far below the
// result's size (about 190 MB).
func TestMaskMillionRowsStream(t *testing.T) {
	t.Setenv("HOOP_MASK_KEY", "a masking key of more than 16 bytes")
	e := newEnv(t)
	addr, sc := e.sidecarProcess(e.maskConfig, "")
	c := e.connect(addr, "")
	rows, err := c.Query(context.Background(),
		"SELECT repeat('x', 150) || ' alice' || i || '@example.com' AS note FROM generate_series(1, 1000000) AS i",
		pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s, "@example.com") {
			t.Fatalf("row %d in clear: %s", n, s)
		}
		n++
	}
	if rows.Err() != nil || n != 1000000 {
		t.Fatalf("%d rows, %v", n, rows.Err())
	}
	if hwm := peakRSS(t, sc.PID()); hwm > 100<<20 {
		t.Fatalf("the Sidecar's peak RSS is %d MiB for a result of about 190 MB: not streamed", hwm>>20)
	}
}

// peakRSS is a process's VmHWM, in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
