package masking

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// An IPv4 address with a port (a log's "client 10.1.2.3:54321"), after a
// label ("ip:10.0.0.1"), or mapped into IPv6 (::ffff:10.0.0.1) was left in
// clear: the guard against code (std::cmp) refused any ':' next to a
// match, and the IPv6 pattern stopped at the mapped address's first digits.
func TestMaskBreakIPAddressGlue(t *testing.T) {
	s, err := Compile([]Rule{{Name: "ip", Entities: []string{IPAddress}, Strategy: Redact}})
	if err != nil {
		t.Fatal(err)
	}
	f := s.For(domain.Analysis{}, domain.Facts{}).Field()
	for in, want := range map[string]string{
		"client 192.168.1.1:8080 closed": "client <IP_ADDRESS>:8080 closed",
		"ip:10.0.0.1":                    "ip:<IP_ADDRESS>",
		"::ffff:10.0.0.1":                "<IP_ADDRESS>",
		"[2001:db8::1]:443":              "[<IP_ADDRESS>]:443",
		"std::cmp":                       "std::cmp",
		"10:30:00.123":                   "10:30:00.123",
	} {
		out, _ := f.Text(nil, []byte(in))
		if string(out) != want {
			t.Errorf("%q: %q, want %q", in, out, want)
		}
		if strings.Contains(want, "<") && strings.Contains(string(out), "10.0.0.1") {
			t.Errorf("%q: in clear", in)
		}
	}
}

// An apostrophe inside a local part (o'brien@, mary'jane.smith@, RFC 5322
// atext) ended the match at it, so what came before it was left in clear.
func TestMaskBreakEmailApostrophe(t *testing.T) {
	s, err := Compile([]Rule{{Name: "mail", Entities: []string{EmailAddress}, Strategy: Redact}})
	if err != nil {
		t.Fatal(err)
	}
	f := s.For(domain.Analysis{}, domain.Facts{}).Field()
	for in, want := range map[string]string{
		"o'brien@example.com":            "<EMAIL_ADDRESS>",
		"to mary'jane.smith@example.com": "to <EMAIL_ADDRESS>",
		"'alice@example.com'":            "'<EMAIL_ADDRESS>'",
		"it's alice@example.com":         "it's <EMAIL_ADDRESS>",
	} {
		if out, _ := f.Text(nil, []byte(in)); string(out) != want {
			t.Errorf("%q: %q, want %q", in, out, want)
		}
	}
}

// JSON kept as text (a MariaDB JSON column, an nvarchar in SQL Server, a
// text/plain body) is read by its bytes: a \u escape splits an entity
// (alice\u0040example.com, or ana.l\u00f3pez@… as json.dumps writes it)
// so that no pattern, or only its tail, matches; the client's JSON
// decoder reads the address in clear.
func TestMaskBreakUnicodeEscapes(t *testing.T) {
	s, err := Compile([]Rule{{Name: "pii", Entities: EntityNames(), Strategy: Redact}})
	if err != nil {
		t.Fatal(err)
	}
	f := s.For(domain.Analysis{}, domain.Facts{}).Field()
	for in, want := range map[string]string{
		`{"e": "alice\u0040example.com"}`:                       `{"e": "<EMAIL_ADDRESS>"}`,
		`{"e": "ana.l\u00f3pez@correo.es"}`:                     `{"e": "<EMAIL_ADDRESS>"}`,
		`{"q": "say \u0022hi\u0022 to alice\u0040example.com"}`: `{"q": "say \u0022hi\u0022 to <EMAIL_ADDRESS>"}`,
		`{"c": "4111\u00201111\u00201111\u00201111"}`:           `{"c": "<CREDIT_CARD>"}`,
		`{"e": "\ud83d\ude00 bob\u0040example.org"}`:            `{"e": "😀 <EMAIL_ADDRESS>"}`,
		`no entity \u00e9`:                                      `no entity \u00e9`,
	} {
		out, _ := f.Text(nil, []byte(in))
		if string(out) != want {
			t.Errorf("%s: %s, want %s", in, out, want)
		}
	}
}

// A statement the analyzer could not read (UNKNOWN: MySQL's HANDLER t
// READ FIRST, a text the parser refuses) names no target, so a rule whose
// match names the table never applied to it, although it may read that
// table: HANDLER customers READ returned the ssn column in clear. Its
// identities and text can still be told; the rest is taken to match.
func TestMaskBreakUnknownStatement(t *testing.T) {
	m := &domain.Match{Targets: []string{"shop.customers"}, Identities: []string{"agent"}}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	s, err := Compile([]Rule{{Name: "cust", Match: m, Columns: []string{"ssn"}, Strategy: Redact}})
	if err != nil {
		t.Fatal(err)
	}
	unknown := domain.Analysis{Actions: []string{"HANDLER", domain.ActionUnknown}, Effects: []string{domain.EffectRead, domain.EffectUnknown}}
	if p := s.For(unknown, domain.Facts{Identities: []string{"agent"}}); p == nil || !p.Field("customers", "ssn").Whole() {
		t.Fatal("an unread statement escaped a rule with targets")
	}
	if p := s.For(unknown, domain.Facts{Identities: []string{"admin"}}); p != nil {
		t.Fatal("a rule for another identity applied")
	}
	read := domain.Analysis{Actions: []string{"SELECT"}, Targets: []string{"shop.orders"}}
	if p := s.For(read, domain.Facts{Identities: []string{"agent"}}); p != nil {
		t.Fatal("a statement read whole, of another table, was masked")
	}
}

// HTML character references hide an address the same way (the common
// alice&#64;example.com obfuscation in a page or an HTML column): a
// browser, or a model reading the page, reads the address.
func TestMaskBreakHTMLReferences(t *testing.T) {
	s, err := Compile([]Rule{{Name: "pii", Entities: EntityNames(), Strategy: Redact}})
	if err != nil {
		t.Fatal(err)
	}
	f := s.For(domain.Analysis{}, domain.Facts{}).Field()
	for in, want := range map[string]string{
		`<a href="mailto:alice&#64;example.com">alice&#x40;example&#46;com</a>`: `<a href="mailto:<EMAIL_ADDRESS>"><EMAIL_ADDRESS></a>`,
		`bob&commat;example.org &lt;b&gt;`:                                      `<EMAIL_ADDRESS> &lt;b&gt;`,
		`no entity &#233; &amp;`:                                                `no entity &#233; &amp;`,
	} {
		if out, _ := f.Text(nil, []byte(in)); string(out) != want {
			t.Errorf("%s: %s, want %s", in, out, want)
		}
	}
}
