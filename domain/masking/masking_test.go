package masking

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

func pii(t *testing.T, strategy Strategy) *Plan {
	t.Helper()
	s, err := Compile([]Rule{{Name: "pii", Entities: EntityNames(), Strategy: strategy}})
	if err != nil {
		t.Fatal(err)
	}
	return s.For(domain.Analysis{}, domain.Facts{})
}

func TestEntitiesAreFoundAndGuarded(t *testing.T) {
	p := pii(t, Redact)
	cases := []struct{ in, want string }{
		{"write to alice@example.com today", "write to <EMAIL_ADDRESS> today"},
		{"4111 1111 1111 1111", "<CREDIT_CARD>"},
		{"4111-1111-1111-1111", "<CREDIT_CARD>"},
		{"card 4111111111111111.", "card <CREDIT_CARD>."},
		{"4111 1111 1111 1112", "4111 1111 1111 1112"}, // fails Luhn
		{"1234567890123456", "1234567890123456"},       // no issuer prefix, fails Luhn
		{"GB82 WEST 1234 5698 7654 32", "<IBAN_CODE>"},
		{"DE89370400440532013000", "<IBAN_CODE>"},
		{"DE89370400440532013001", "DE89370400440532013001"}, // mod-97 fails
		{"ssn 123-45-6780", "ssn <US_SSN>"},
		{"000-45-6780", "000-45-6780"}, // area 000
		{"666-45-6780", "666-45-6780"},
		{"123-45 6780", "123-45 6780"}, // mixed separators
		{"call +1 415 555 2671", "call <PHONE_NUMBER>"},
		{"call (415) 555-2671", "call <PHONE_NUMBER>"},
		{"order 2024-01-15", "order 2024-01-15"},
		{"from 10.0.0.12 at", "from <IP_ADDRESS> at"},
		{"at 2001:db8::1 now", "at <IP_ADDRESS> now"},
		{"std::cmp and 12:30:45", "std::cmp and 12:30:45"},
		{"999.1.1.1", "999.1.1.1"},
		{"key AKIAIOSFODNN7EXAMPLE", "key <AWS_ACCESS_KEY>"},
		{"AKIAIOSFODNN7EXAMPL", "AKIAIOSFODNN7EXAMPL"}, // 19 characters
		{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "Bearer <JWT>"},
		{"eyJub3QiOiJqd3QifQ.eyJzdWIiOiIxIn0.c2ln", "eyJub3QiOiJqd3QifQ.eyJzdWIiOiIxIn0.c2ln"}, // no alg
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n", "<PRIVATE_KEY>\n"},
		{"-----BEGIN PRIVATE KEY-----\nMIIE (cut", "<PRIVATE_KEY>"},
		{"-----BEGIN PUBLIC KEY-----\nMIIE\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIE\n-----END PUBLIC KEY-----"},
		{"nothing here", "nothing here"},
	}
	for _, c := range cases {
		got, changed := p.Field().Text(nil, []byte(c.in))
		if string(got) != c.want || changed != (c.in != c.want) {
			t.Errorf("%q: got %q (changed %v), want %q", c.in, got, changed, c.want)
		}
	}
}

func TestStrategies(t *testing.T) {
	key := []byte("0123456789abcdef0123")
	compile := func(r Rule) *Plan {
		s, err := Compile([]Rule{r})
		if err != nil {
			t.Fatal(err)
		}
		return s.For(domain.Analysis{}, domain.Facts{})
	}
	part := compile(Rule{Name: "c", Columns: []string{"card_number"}, Strategy: Partial, KeepLast: 4})
	if got, _ := part.Field("", "card_number").Text(nil, []byte("4111111111111111")); string(got) != "************1111" {
		t.Errorf("partial: %q", got)
	}
	if got, _ := part.Field("", "card_number").Text(nil, []byte("4111 1111 1111 1111")); string(got) != "**** **** **** 1111" {
		t.Errorf("partial keeps separators: %q", got)
	}
	if got, _ := part.Field("", "card_number").Text(nil, []byte("123")); string(got) != "***" {
		t.Errorf("a value shorter than keep_last is masked whole: %q", got)
	}
	mask := compile(Rule{Name: "m", Entities: []string{EmailAddress}, Strategy: Mask})
	if got, _ := mask.Field().Text(nil, []byte("to ålice@example.com")); string(got) != "to *****@*******.***" {
		t.Errorf("mask: %q", got)
	}
	h1 := compile(Rule{Name: "h", Columns: []string{"email"}, Strategy: Hash, Key: key})
	h2 := compile(Rule{Name: "h", Columns: []string{"email"}, Strategy: Hash, Key: key})
	a, _ := h1.Field("users", "email").Text(nil, []byte("alice@example.com"))
	b, _ := h2.Field("", "email").Text(nil, []byte("alice@example.com"))
	c, _ := h2.Field("", "email").Text(nil, []byte("bob@example.com"))
	if string(a) != string(b) || string(a) == string(c) || len(a) != 32 {
		t.Errorf("hash: %q %q %q", a, b, c)
	}
	other := compile(Rule{Name: "h", Columns: []string{"email"}, Strategy: Hash, Key: []byte("another key of 16+ bytes")})
	if d, _ := other.Field("", "email").Text(nil, []byte("alice@example.com")); string(d) == string(a) {
		t.Error("another key gives the same hash")
	}
	if got := h1.Counts(); len(got) != 1 || got[0] != (Count{"h", 1}) {
		t.Errorf("counts: %v", got)
	}
}

func TestColumnPaths(t *testing.T) {
	s, err := Compile([]Rule{{Name: "c", Columns: []string{"card_number", "*.ssn", "billing.**.iban"}, Strategy: Redact}})
	if err != nil {
		t.Fatal(err)
	}
	p := s.For(domain.Analysis{}, domain.Facts{})
	for _, c := range []struct {
		path []string
		want bool
	}{
		{[]string{"", "card_number"}, true},
		{[]string{"a", "b", "card_number"}, true},
		{[]string{"", "ssn"}, true},
		{[]string{"ssn"}, false}, // a top-level document field has no parent
		{[]string{"person", "ssn"}, true},
		{[]string{"billing", "iban"}, true},
		{[]string{"billing", "x", "y", "iban"}, true},
		{[]string{"shipping", "iban"}, false},
		{[]string{"", "card_numbers"}, false},
		{nil, false},
	} {
		if got := p.Field(c.path...).Whole(); got != c.want {
			t.Errorf("%q: whole %v, want %v", c.path, got, c.want)
		}
	}
}

func TestMatchLimitsARule(t *testing.T) {
	m := &domain.Match{Targets: []string{"public.customers"}, Identities: []string{"agent-*"}}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	s, err := Compile([]Rule{{Name: "c", Match: m, Columns: []string{"card_number"}, Strategy: Redact}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.NeedsFacts() {
		t.Error("a rule with identities needs facts")
	}
	a := domain.Analysis{Actions: []string{"SELECT"}, Targets: []string{"public.customers"}}
	if s.For(a, domain.Facts{Identities: []string{"agent-7"}}) == nil {
		t.Error("matching statement and identity: no plan")
	}
	if s.For(a, domain.Facts{Identities: []string{"human"}}) != nil {
		t.Error("another identity: a plan")
	}
	if s.For(domain.Analysis{Targets: []string{"public.orders"}}, domain.Facts{Identities: []string{"agent-7"}}) != nil {
		t.Error("another table: a plan")
	}
	multi := domain.Analysis{Parts: []domain.Analysis{{Targets: []string{"x"}}, a}}
	if s.For(multi, domain.Facts{Identities: []string{"agent-7"}}) == nil {
		t.Error("a part matching: no plan")
	}
	var none *Set
	if none.For(a, domain.Facts{}) != nil || none.For(a, domain.Facts{}).Field("x") != nil {
		t.Error("a nil set masks")
	}
}

func TestTypedAndUnreadableValues(t *testing.T) {
	s, _ := Compile([]Rule{
		{Name: "cols", Columns: []string{"amount"}, Strategy: Redact},
		{Name: "pii", Entities: []string{CreditCard}, Strategy: Redact},
	})
	p := s.For(domain.Analysis{}, domain.Facts{})
	if !p.Field("", "amount").NonText([]byte("12")) {
		t.Error("a column rule on a number: not NULL")
	}
	if !p.Field("", "card").NonText([]byte("4111111111111111")) {
		t.Error("a card number in a bigint: not NULL")
	}
	if p.Field("", "n").NonText([]byte("42")) {
		t.Error("a plain number: NULL")
	}
	if null, err := p.Field("", "amount").Unreadable("type 1234"); !null || err != nil {
		t.Errorf("an unreadable value under a column rule: %v %v", null, err)
	}
	_, err := p.Field("", "blob").Unreadable("type 1234")
	if err == nil || !strings.Contains(err.Error(), `masking rule "pii"`) || !strings.Contains(err.Error(), "blob") {
		t.Errorf("strict: %v", err)
	}
	be, _ := Compile([]Rule{{Name: "pii", Entities: []string{CreditCard}, Strategy: Redact, Mode: BestEffort}})
	bp := be.For(domain.Analysis{}, domain.Facts{})
	if null, err := bp.Field("", "blob").Unreadable("type 1234"); null || err != nil || bp.Uninspected != 1 {
		t.Errorf("best_effort: %v %v %d", null, err, bp.Uninspected)
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, c := range []struct {
		r    Rule
		want string
	}{
		{Rule{Name: "a", Strategy: Redact}, "neither entities nor columns"},
		{Rule{Name: "a", Entities: []string{"EMAIL"}, Strategy: Redact}, `entity "EMAIL"`},
		{Rule{Name: "a", Columns: []string{"a..b"}, Strategy: Redact}, "empty segment"},
		{Rule{Name: "a", Columns: []string{"x"}, Strategy: "blur"}, `strategy "blur"`},
		{Rule{Name: "a", Columns: []string{"x"}, Strategy: Hash}, "key"},
		{Rule{Name: "a", Columns: []string{"x"}, Strategy: Hash, Key: []byte("short")}, "16 bytes"},
		{Rule{Name: "a", Columns: []string{"x"}, Strategy: Redact, Mode: "lax"}, `mode "lax"`},
	} {
		if _, err := Compile([]Rule{c.r}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
		}
	}
	if s, err := Compile(nil); s != nil || err != nil {
		t.Error("no rules is not a nil set")
	}
}

// A candidate the guard refuses is searched for shorter ones at its
// separators: a card followed by more digits, two cards in a row, an IBAN
// followed by a capitalised word.
func TestShorterCandidates(t *testing.T) {
	p := pii(t, Redact)
	for in, want := range map[string]string{
		"4111111111111111 10.1.1.1":           "<CREDIT_CARD> <IP_ADDRESS>",
		"4111111111111111 4012888888881881":   "<CREDIT_CARD> <CREDIT_CARD>",
		"12 4111 1111 1111 1111":              "12 <CREDIT_CARD>",
		"GB82WEST12345698765432 AND MORE":     "<IBAN_CODE> AND MORE",
		"ref 1234 5678 9012 3456 7890 1234 5": "ref 1234 5678 9012 3456 7890 1234 5",
	} {
		if got, _ := p.Field().Text(nil, []byte(in)); string(got) != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
