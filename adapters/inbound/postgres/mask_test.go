package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/ports"
)

// auditLog keeps the audit events of a fixture's core.
type auditLog struct {
	mu sync.Mutex
	ev []ports.AuditEvent
}

func (a *auditLog) Record(e ports.AuditEvent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ev = append(a.ev, e)
}

// decisions returns the events of decision d.
func (a *auditLog) decisions(d string) []ports.AuditEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []ports.AuditEvent
	for _, e := range a.ev {
		if e.Decision == d {
			out = append(out, e)
		}
	}
	return out
}

// withMasking gives the listener masking rules and records its audit
// trail in a.
func withMasking(t testing.TB, a *auditLog, rules ...masking.Rule) option {
	set, err := masking.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return func(s *app.ListenerSettings, o *app.CoreOptions) { s.Masking, o.Audit = set, a }
}

var piiMask = masking.Rule{Name: "pii", Entities: masking.EntityNames(), Strategy: masking.Mask}

const (
	email   = "alice@example.com"
	card    = "4111 1111 1111 1111"
	notCard = "4111 1111 1111 1112" // fails Luhn
)

func TestMaskPsqlSimpleQuery(t *testing.T) {
	a := &auditLog{}
	f := newFixture(t, withMasking(t, a, piiMask))
	out := f.psql("", "SELECT 'alice@example.com' AS contact, '4111 1111 1111 1111' AS card, '4111 1111 1111 1112' AS other;\n")
	if strings.Contains(out, email) || strings.Contains(out, card) {
		t.Fatalf("a value in clear:\n%s", out)
	}
	if !strings.Contains(out, "*****@*******.***") || !strings.Contains(out, "**** **** **** ****") || !strings.Contains(out, notCard) {
		t.Fatalf("not masked as expected:\n%s", out)
	}
	if m := a.decisions("masked"); len(m) != 1 || m[0].Masked["pii"] != 2 {
		t.Fatalf("masked audit lines: %+v", m)
	}
}

// The extended protocol (pgx): binary formats for jsonb, arrays, numbers;
// a column rule makes a number NULL and keeps the last four of a card.
func TestMaskExtendedBinary(t *testing.T) {
	a := &auditLog{}
	f := newFixture(t, withMasking(t, a,
		masking.Rule{Name: "cards", Columns: []string{"card_number"}, Strategy: masking.Partial, KeepLast: 4},
		masking.Rule{Name: "amounts", Columns: []string{"amount"}, Strategy: masking.Redact},
		piiMask))
	f.direct(`CREATE TABLE c (id int, card_number text, amount bigint, note varchar, doc jsonb, tags text[], big bigint, n numeric, ip inet)`)
	f.direct(`INSERT INTO c VALUES (1, '4111111111111111', 42, 'mail alice@example.com', '{"to": "alice@example.com", "n": 4111111111111111, "k": [1]}',
		ARRAY['alice@example.com', NULL, 'plain'], 4111111111111111, 4111111111111111, '10.0.0.12')`)
	c := f.connect("")
	var (
		id          int
		cardNo      string
		amount, big *int64
		note        string
		doc         map[string]any
		tags        []*string
		n           *string
		ip          *string
	)
	err := c.QueryRow(context.Background(), "SELECT id, card_number, amount, note, doc, tags, big, n::numeric, ip FROM c").
		Scan(&id, &cardNo, &amount, &note, &doc, &tags, &big, &n, &ip)
	if err != nil {
		t.Fatal(err)
	}
	if id != 1 || cardNo != "************1111" || amount != nil || note != "mail *****@*******.***" || big != nil || n != nil || ip != nil {
		t.Fatalf("id %d card %q amount %v note %q big %v n %v ip %v", id, cardNo, amount, note, big, n, ip)
	}
	if doc["to"] != "*****@*******.***" || doc["n"] != nil || len(doc["k"].([]any)) != 1 {
		t.Fatalf("jsonb: %v", doc)
	}
	if len(tags) != 3 || *tags[0] != "*****@*******.***" || tags[1] != nil || *tags[2] != "plain" {
		t.Fatalf("text[]: %v", tags)
	}
	// The same through the text format (a simple-protocol query).
	rows, err := c.Query(context.Background(), "SELECT doc::text, tags::text FROM c", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d, tg string
		if err := rows.Scan(&d, &tg); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(d+tg, email) {
			t.Fatalf("in clear: %s %s", d, tg)
		}
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if m := a.decisions("masked"); len(m) != 2 || m[0].Masked["cards"] != 1 || m[0].Masked["amounts"] != 1 {
		t.Fatalf("masked audit lines: %+v", m)
	}
}

// A value a strict rule cannot read (a point in binary format) withholds
// the result with a native error; the connection stays usable; under
// best_effort it passes and is counted.
func TestMaskUnreadable(t *testing.T) {
	a := &auditLog{}
	f := newFixture(t, withMasking(t, a, piiMask))
	c := f.connect("")
	var p any
	err := c.QueryRow(context.Background(), "SELECT point(1, 2) AS p").Scan(&p)
	pe := pgErr(t, err, CodeMaskWithheld)
	if !strings.Contains(pe.Message, `masking rule "pii" could not read a value of p (`) {
		t.Fatalf("message: %s", pe.Message)
	}
	var one int
	if err := c.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the connection after a withheld result: %v", err)
	}
	if w := a.decisions("mask_withheld"); len(w) != 1 || w[0].Rule != "pii" {
		t.Fatalf("withheld audit lines: %+v", w)
	}

	be := piiMask
	be.Mode = masking.BestEffort
	a2 := &auditLog{}
	f2 := newFixture(t, withMasking(t, a2, be))
	if err := f2.connect("").QueryRow(context.Background(), "SELECT point(1, 2) AS p").Scan(&p); err != nil {
		t.Fatal(err)
	}
	if m := a2.decisions("masked"); len(m) != 1 || m[0].Uninspected != 1 {
		t.Fatalf("best_effort audit lines: %+v", m)
	}
}

// psql in a client encoding the patterns cannot read, and COPY TO STDOUT.
func TestMaskPsqlEncodingAndCopy(t *testing.T) {
	a := &auditLog{}
	f := newFixture(t, withMasking(t, a, piiMask))
	out := f.psql("", `\encoding SJIS
SELECT 'alice@example.com' AS contact;
\encoding UTF8
SELECT 'still here' AS alive;
COPY (SELECT 'alice@example.com', 'x,4111 1111 1111 1111', 'plain') TO STDOUT;
COPY (SELECT 'alice@example.com', 'x,4111 1111 1111 1111', 'plain') TO STDOUT (FORMAT csv);
`)
	if strings.Contains(out, email) || strings.Contains(out, card) {
		t.Fatalf("a value in clear:\n%s", out)
	}
	for _, want := range []string{"ERROR:  hoop: the result was withheld", "client_encoding SJIS", "still here",
		"*****@*******.***\tx,**** **** **** ****\tplain", `*****@*******.***,"x,**** **** **** ****",plain`} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
}

// A pipeline (pgx.Batch: several Executes before one Sync): each Execute
// is masked with its own columns; a withheld result ends the batch as a
// server error would, and the connection goes on.
func TestMaskPipeline(t *testing.T) {
	a := &auditLog{}
	f := newFixture(t, withMasking(t, a,
		masking.Rule{Name: "cards", Columns: []string{"card_number"}, Strategy: masking.Partial, KeepLast: 4}, piiMask))
	c := f.connect("")
	ctx := context.Background()
	b := &pgx.Batch{}
	b.Queue("SELECT 'mail alice@example.com' AS note")
	b.Queue("SELECT '4111111111111111' AS card_number, 7 AS n")
	b.Queue("SELECT 'plain' AS note")
	res := c.SendBatch(ctx, b)
	var note, cardNo, plain string
	var n int
	if err := res.QueryRow().Scan(&note); err != nil || note != "mail *****@*******.***" {
		t.Fatalf("first: %q %v", note, err)
	}
	if err := res.QueryRow().Scan(&cardNo, &n); err != nil || cardNo != "************1111" || n != 7 {
		t.Fatalf("second: %q %d %v", cardNo, n, err)
	}
	if err := res.QueryRow().Scan(&plain); err != nil || plain != "plain" {
		t.Fatalf("third: %q %v", plain, err)
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}

	b = &pgx.Batch{}
	b.Queue("SELECT point(1, 2) AS p")
	b.Queue("SELECT 'after' AS note")
	res = c.SendBatch(ctx, b)
	var p any
	pgErr(t, res.QueryRow().Scan(&p), CodeMaskWithheld)
	if err := res.QueryRow().Scan(&note); err == nil {
		t.Fatalf("a result after the withheld one in the same batch was shown: %q", note)
	}
	res.Close()
	if err := c.QueryRow(ctx, "SELECT 'alice@example.com'").Scan(&note); err != nil || note != "*****@*******.***" {
		t.Fatalf("after the batch: %q %v", note, err)
	}
}

// An approved resend is masked like any statement, and the masking does
// not change what the statement is: the held send and the resend are one
// approval.
func TestMaskApprovedResend(t *testing.T) {
	a := &auditLog{}
	f := newFixture(t, withMasking(t, a, piiMask),
		withApproval("reads", domain.Match{Actions: []string{"SELECT"}, Targets: []string{"public.people"}}))
	f.direct("CREATE TABLE people (contact text)")
	f.direct("INSERT INTO people VALUES ('alice@example.com')")
	q := "SELECT contact FROM people;\n"
	held := ids(f.psql(returnApp, q))
	if len(held) != 1 {
		t.Fatalf("not held: %v", held)
	}
	f.approve(held[0])
	out := f.psql(returnApp, q)
	if strings.Contains(out, email) || !strings.Contains(out, "*****@*******.***") {
		t.Fatalf("the approved resend:\n%s", out)
	}
	if st := f.status(held[0]); st != domain.StatusExecuted {
		t.Fatalf("approval %s, want EXECUTED", st)
	}
}
