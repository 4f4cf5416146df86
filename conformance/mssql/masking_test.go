package mssqlconf

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// maskingRules is the masking_rules block of the tests: pii masks every
// entity in every text value; cards shows the last four of a card column;
// hashed hashes an email column with the key in HOOP_MASK_KEY.
const maskingRules = `masking_rules:
  - name: pii
    entities: [EMAIL_ADDRESS, CREDIT_CARD, US_SSN, IBAN_CODE, PHONE_NUMBER, IP_ADDRESS, JWT, AWS_ACCESS_KEY, PRIVATE_KEY]
    strategy: mask
  - name: cards
    columns: ["*.card"]
    strategy: partial
    keep_last: 4
  - name: hashed
    columns: [email]
    strategy: hash
    key_env: HOOP_MASK_KEY
`

// maskedSidecar starts a Sidecar whose mssql listener applies the named
// masking rules, and returns its address and process (audit to stdout).
func (e *env) maskedSidecar(rules string) (string, *harness.Sidecar) {
	e.t.Helper()
	e.t.Setenv("HOOP_MASK_KEY", "conformance-masking-key-0123456789") // hashed's key_env: one key for every Sidecar
	addr := harness.FreeAddr(e.t)
	cfg := maskingRules + e.config(addr, listenerOpts{extra: "    masking_rules: [" + rules + "]\n"})
	return addr, harness.StartSidecar(e.t, harness.SidecarOptions{Config: cfg, Token: sidecarToken})
}

// row reads the one row of q on db as strings (NULL as "NULL").
func row(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	r, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer r.Close()
	cols, _ := r.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !r.Next() {
		t.Fatalf("%s: no row (%v)", q, r.Err())
	}
	if err := r.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = "NULL"
		if v.Valid {
			out[i] = v.String
		}
	}
	return out
}

// Masking through go-mssqldb on the mssql listener (docs/mssql-listener.md,
// "Masking"). The upstream is the one harness.MSSQL picks: a real SQL
// Server when one is named or on Docker, else (on this machine) the
// in-process stand-in tdstest.Mini, whose SELECT of literals answers
// COLMETADATA with NVARCHAR columns and a ROW token; the run logs which.
// Through the Sidecar the card number and the email are masked, the card
// number that fails Luhn is left as it is, in a batch and in an
// sp_executesql RPC, and the audit line "masked" counts per rule; directly
// both are in clear. A partial column rule shows
// ************1111; hash gives the same text on two connections and on two
// Sidecar processes with the same key.
func TestMasking(t *testing.T) {
	e := newEnv(t)
	if e.mini != nil {
		t.Log("upstream: the stand-in tdstest.Mini (COLMETADATA, then ROW tokens of NVARCHAR columns)")
	}
	const pii = "SELECT '4111 1111 1111 1111' AS card, 'alice@example.com' AS contact, '4111 1111 1111 1112' AS other"

	t.Run("pii masks entities, not a number failing Luhn", func(t *testing.T) {
		addr, sc := e.in(t).maskedSidecar("pii")
		got := row(t, e.in(t).open(addr, "disable", ""), pii)
		want := []string{"**** **** **** ****", "*****@*******.***", "4111 1111 1111 1112"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("through the Sidecar: %q, want %q", got, want)
		}
		var rpc string // a query with a parameter: sp_executesql, an RPC
		if err := e.in(t).open(addr, "disable", "").QueryRow("SELECT @p1 AS card", "4111 1111 1111 1111").Scan(&rpc); err != nil || rpc != want[0] {
			t.Fatalf("sp_executesql through the Sidecar: %q %v", rpc, err)
		}
		direct := row(t, e.in(t).open(e.upAddr, "disable", ""), pii)
		if direct[0] != "4111 1111 1111 1111" || direct[1] != "alice@example.com" {
			t.Fatalf("directly: %q", direct)
		}
		// The audit lines are written once each answer has been sent.
		sc.WaitFor(t, `"decision":"masked","masked":{"pii":2}`, 10*time.Second) // the batch
		sc.WaitFor(t, `"decision":"masked","masked":{"pii":1}`, 10*time.Second) // the RPC
	})

	t.Run("partial keep_last 4 on a card column", func(t *testing.T) {
		addr, _ := e.in(t).maskedSidecar("cards")
		got := row(t, e.in(t).open(addr, "disable", ""), "SELECT '4111111111111111' AS card, 'left' AS note")
		if got[0] != "************1111" || got[1] != "left" {
			t.Fatalf("got %q", got)
		}
	})

	t.Run("hash is the same on two connections and two Sidecars", func(t *testing.T) {
		const q = "SELECT 'bob@example.com' AS email"
		a, _ := e.in(t).maskedSidecar("hashed")
		b, _ := e.in(t).maskedSidecar("hashed")
		one := row(t, e.in(t).open(a, "disable", ""), q)[0]
		two := row(t, e.in(t).open(a, "disable", "another"), q)[0]
		three := row(t, e.in(t).open(b, "disable", ""), q)[0]
		if len(one) != 32 || one != two || one != three || strings.Contains(one, "bob") {
			t.Fatalf("hashes %q, %q (second connection), %q (second Sidecar)", one, two, three)
		}
	})
}

// A 1,000,000-row result (~1 GB) streams through a listener with the pii
// rule, every value of every row read by the masking: rows are rewritten
// one at a time, never gathered. The masking's garbage (each row decoded
// and searched) lifts the Sidecar's RSS once, to the garbage collector's
// heap goal, within the first tenth of the rows; after that it stays flat
// while the other 860 MB pass (less than 32 MiB more), and the whole
// growth stays under 100 MiB.
func TestMaskedLargeResultStreamsWithFlatMemory(t *testing.T) {
	e := newEnv(t)
	e.big()
	addr, s := e.maskedSidecar("pii")
	before, tenth, peak := streamsFlat(t, e, addr, s, 1000000, func(p string) {
		if !strings.HasPrefix(p, "row ") && !strings.HasPrefix(p, "x") {
			t.Fatalf("payload %.40q", p)
		}
	})
	t.Logf("RSS %d MiB before, %d MiB after the first tenth, peak %d MiB", before>>20, tenth>>20, peak>>20)
	if peak-tenth >= 32<<20 || peak-before >= 100<<20 {
		t.Fatalf("Sidecar RSS grew by %d MiB after the first tenth of the rows (%d MiB in all)", (peak-tenth)>>20, (peak-before)>>20)
	}
}
