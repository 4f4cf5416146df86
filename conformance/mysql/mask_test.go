package mysqlconf

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// piiRule masks every entity inside text values (docs/masking.md).
const piiRule = `masking_rules:
  - name: pii
    entities: [PRIVATE_KEY, JWT, AWS_ACCESS_KEY, EMAIL_ADDRESS, IBAN_CODE, CREDIT_CARD, US_SSN, IP_ADDRESS, PHONE_NUMBER]
    strategy: mask
  - name: card-last4
    columns: [cards.number, "*.secret_id"]
    strategy: partial
    keep_last: 4
  - name: token
    columns: ["*.token"]
    strategy: hash
    key_env: HOOP_TEST_MASK_KEY
`

const maskQuery = "SELECT 'alice@example.com' AS contact, '4111 1111 1111 1111' AS card, '4111 1111 1111 1112' AS notcard;\n"

// maskEnv is an env with a Sidecar whose mysql listener masks with piiRule.
func maskEnv(t *testing.T) (*env, string, func() string) {
	t.Setenv("HOOP_TEST_MASK_KEY", "0123456789abcdef-test-key")
	e := newEnv(t)
	addr, sc := e.sidecar(listenerOpts{masking: piiRule, masks: "[pii, card-last4, token]"})
	return e, addr, sc.Output
}

// The mariadb CLI through the listener prints neither the email nor the
// card number (a number that fails Luhn is left as it is); directly it
// prints both. The audit line says what was masked, per rule.
func TestMaskCLIHidesEntities(t *testing.T) {
	e, addr, out := maskEnv(t)
	direct := e.cli(e.up.addr, maskQuery)
	if !strings.Contains(direct, "alice@example.com") || !strings.Contains(direct, "4111 1111 1111 1111") {
		t.Fatalf("directly the values print in clear: %q", direct)
	}
	got := e.cli(addr, maskQuery)
	for _, clear := range []string{"alice@example.com", "4111 1111 1111 1111"} {
		if strings.Contains(got, clear) {
			t.Errorf("the listener let %q through: %q", clear, got)
		}
	}
	if !strings.Contains(got, "*****@*******.***") || !strings.Contains(got, "**** **** **** ****") {
		t.Errorf("masked values missing: %q", got)
	}
	if !strings.Contains(got, "4111 1111 1111 1112") {
		t.Errorf("a number that fails Luhn was changed: %q", got)
	}
	waitOutput(t, out, `"decision":"masked"`, `"masked":{"pii":2}`)
}

// A column rule masks a whole column by name, in text (COM_QUERY) and
// binary (prepared statement) results; a number under it becomes NULL,
// and a card number kept in a BIGINT is NULL under the entity rule.
func TestMaskColumnsAndNumbers(t *testing.T) {
	e, addr, _ := maskEnv(t)
	e.direct("CREATE TABLE cards (id INT, number VARCHAR(32), secret_id BIGINT, raw BIGINT)")
	e.direct("INSERT INTO cards VALUES (1, '5500005555555559', 42, 4111111111111111)")
	got := e.cli(addr, "SELECT number, secret_id, raw, id FROM cards;\n")
	if !strings.Contains(got, "************5559\tNULL\tNULL\t1") {
		t.Errorf("text protocol: %q", got)
	}
	c := e.conn(addr, "", nil)
	var number string
	var secret, raw *int64
	var id int
	err := c.QueryRowContext(context.Background(), "SELECT number, secret_id, raw, id FROM cards WHERE id = ?", 1).Scan(&number, &secret, &raw, &id)
	if err != nil {
		t.Fatal(err)
	}
	if number != "************5559" || secret != nil || raw != nil || id != 1 {
		t.Errorf("binary protocol: %q %v %v %d", number, secret, raw, id)
	}
}

// hash gives the same text for the same value on two connections and on
// two Sidecar processes with the same key.
func TestMaskHashIsStable(t *testing.T) {
	e, addr, _ := maskEnv(t)
	q := "SELECT 'abc-secret' AS token;\n"
	one, two := e.cli(addr, q), e.cli(addr, q)
	addr2, _ := e.sidecar(listenerOpts{masking: piiRule, masks: "[pii, card-last4, token]"})
	three := e.cli(addr2, q)
	h := regexp.MustCompile(`[0-9a-f]{32}`).FindString(one)
	if h == "" || strings.Contains(one, "abc-secret") {
		t.Fatalf("no hash: %q", one)
	}
	if !strings.Contains(two, h) || !strings.Contains(three, h) {
		t.Errorf("hash differs: %q %q %q", one, two, three)
	}
}

// Every result set of a multi-statement text and of a CALL is masked.
func TestMaskMultiResultAndCall(t *testing.T) {
	e, addr, _ := maskEnv(t)
	e.direct("CREATE PROCEDURE two() BEGIN SELECT 'bob@example.com' AS a; SELECT 'carol@example.com' AS b; END")
	got := e.cli(addr, "SELECT 'alice@example.com' AS x; SELECT 'dave@example.com' AS y;\nCALL two();\nSELECT 'after' AS z;\n")
	for _, clear := range []string{"alice@", "bob@", "carol@", "dave@"} {
		if strings.Contains(got, clear) {
			t.Errorf("%q in clear: %q", clear, got)
		}
	}
	if strings.Count(got, "@example.com") != 0 || strings.Count(got, "@*******.***") != 4 || !strings.Contains(got, "after") {
		t.Errorf("got %q", got)
	}
}

// Values are read in the character set the server sends them in: under
// SET NAMES latin1 an email next to a latin1 letter is masked and the
// letter comes back as it was.
func TestMaskLatin1(t *testing.T) {
	e, addr, _ := maskEnv(t)
	got := e.cli(addr, "SET NAMES latin1;\nSELECT 'Jos\xe9 alice@example.com' AS who;\n", "--default-character-set=latin1")
	if strings.Contains(got, "alice@example.com") || !strings.Contains(got, "Jos\xe9 *****@*******.***") {
		t.Errorf("got %q", got)
	}
}

// With character_set_results NULL the server sends a utf16 column as
// utf16: the email is found in the decoded text and written back in utf16.
func TestMaskUTF16Column(t *testing.T) {
	e, addr, _ := maskEnv(t)
	e.direct("CREATE TABLE wide (v VARCHAR(40) CHARACTER SET utf16)")
	e.direct("INSERT INTO wide VALUES ('alice@example.com')")
	got := e.cli(addr, "SET character_set_results = NULL;\nSELECT v FROM wide;\n")
	clear, masked := utf16("alice@example.com"), utf16("*****@*******.***")
	if strings.Contains(got, clear) || !strings.Contains(got, masked) {
		t.Errorf("got %q", got)
	}
	if direct := e.cli(e.up.addr, "SET character_set_results = NULL;\nSELECT v FROM wide;\n"); !strings.Contains(direct, clear) {
		t.Errorf("directly: %q", direct)
	}
}

// utf16 is s (ASCII) in UTF-16BE as the CLI prints it in batch mode
// (a zero byte as \0).
func utf16(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		b.WriteString(`\0`)
		b.WriteByte(c)
	}
	return b.String()
}

// A value a strict rule cannot read (a character set the masking does not
// decode) ends the result with an ERR that says why; the connection stays
// usable and the next statement is masked as usual.
func TestMaskStrictRefusesUnreadable(t *testing.T) {
	e, addr, out := maskEnv(t)
	e.direct("CREATE TABLE old (v VARCHAR(40) CHARACTER SET dec8)")
	e.direct("INSERT INTO old VALUES ('alice@example.com')")
	got := e.cli(addr, "SET character_set_results = NULL;\nSELECT v FROM old;\nSET NAMES utf8mb4;\nSELECT 'bob@example.com' AS y;\n")
	if strings.Contains(got, "alice@example.com") || !strings.Contains(got, "the result was withheld") {
		t.Errorf("unreadable value: %q", got)
	}
	if strings.Contains(got, "bob@example.com") || !strings.Contains(got, "***@*******.***") {
		t.Errorf("the next statement: %q", got)
	}
	waitOutput(t, out, `"decision":"mask_withheld"`, `"rule":"pii"`)
}

// waitOutput waits until a line of the Sidecar's output holds all of subs.
func waitOutput(t *testing.T, out func() string, subs ...string) {
	t.Helper()
	for range 200 {
		for _, line := range strings.Split(out(), "\n") {
			all := true
			for _, s := range subs {
				all = all && strings.Contains(line, s)
			}
			if all {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("no output line holds %q:\n%s", subs, out())
}
