package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hoophq/sidecar/conformance/harness"
)

const heldText = "statement held for human approval"

// effectsSidecar starts one Sidecar whose three return-mode listeners each
// hold one effect (issue 25's rules: {effects: [INSERT]}, {effects:
// [UNBOUNDED]}, {effects: [RUNS_CODE]}) or a preset ({preset:
// destructive}), and returns their addresses by effect or preset name.
func (e *env) effectsSidecar() map[string]string {
	e.t.Helper()
	addrs := map[string]string{}
	var rules, listeners strings.Builder
	for _, effect := range []string{"INSERT", "UNBOUNDED", "RUNS_CODE", "destructive"} {
		addrs[effect] = harness.FreeAddr(e.t)
		match := fmt.Sprintf("{effects: [%s]}", effect)
		if effect == "destructive" {
			match = "{preset: destructive}"
		}
		fmt.Fprintf(&rules, "  - name: hold-%s\n    match: %s\n", strings.ToLower(effect), match)
		fmt.Fprintf(&listeners, `  - name: pg-%s
    protocol: postgres
    listen: %s
    upstream: %s
    mode: return
    approval_rules: [hold-%s]
`, strings.ToLower(effect), addrs[effect], e.upstream, strings.ToLower(effect))
	}
	config := fmt.Sprintf(`sidecar: test
control_plane: {url: %s, token_env: HOOP_SIDECAR_TOKEN, timeout: 2s}
log: {format: text, level: info}
audit: {file: "-"}
approval_rules:
%slisteners:
%s`, e.cp.URL, rules.String(), listeners.String())
	harness.StartSidecar(e.t, harness.SidecarOptions{Config: config, Token: sidecarToken})
	return addrs
}

// A rule on the INSERT effect holds every way PostgreSQL's clients load
// rows: psql's \copy and a COPY … FROM STDIN sent as SQL, pgx's CopyFrom
// (binary COPY), and INSERT; it lets a SELECT through. The client sees the
// denial and no row lands in the table.
func TestEffectInsertHoldsCopy(t *testing.T) {
	e := newEnv(t)
	addr := e.effectsSidecar()["INSERT"]
	e.direct("CREATE TABLE t (id int)")
	e.direct("INSERT INTO t VALUES (1), (2)")
	for name, input := range map[string]string{
		`\copy`:           "\\copy t from stdin\n7\n8\n\\.\n",
		"COPY FROM STDIN": "COPY t FROM STDIN;\n7\n8\n\\.\n",
		"INSERT":          "INSERT INTO t VALUES (7);\n",
	} {
		out := e.psql(addr, "agent", input)
		if !strings.Contains(out, heldText) {
			t.Errorf("%s: psql does not show the denial:\n%s", name, out)
		}
		if n := e.count("SELECT count(*) FROM t"); n != 2 {
			t.Fatalf("%s: %d rows after the held load, want 2:\n%s", name, n, out)
		}
	}
	c := e.connect(addr, "agent")
	_, err := c.CopyFrom(context.Background(), pgx.Identifier{"t"}, []string{"id"}, pgx.CopyFromRows([][]any{{9}}))
	heldID(t, err)
	if n := e.count("SELECT count(*) FROM t"); n != 2 {
		t.Fatalf("pgx CopyFrom: %d rows, want 2", n)
	}
	if out := e.psql(addr, "agent", "SELECT count(*) AS n FROM t;\n"); !strings.Contains(out, "\n 2\n") {
		t.Fatalf("a SELECT through the INSERT rule:\n%s", out)
	}
}

// A rule on UNBOUNDED holds a DELETE that reaches every row (no WHERE, a
// constant-true WHERE, sent as simple or extended protocol) and lets one
// with a WHERE that chooses rows run; the real server's rows show which ran.
// Texts of one shape whose constants decide (`'a' = 'b'` against `'a' =
// 'a'`) are each decided by their own constants.
func TestEffectUnboundedHoldsDeleteWithoutWhere(t *testing.T) {
	e := newEnv(t)
	addr := e.effectsSidecar()["UNBOUNDED"]
	e.direct("CREATE TABLE t (id int)")
	e.direct("INSERT INTO t VALUES (1), (2), (3)")
	out := e.psql(addr, "agent", "DELETE FROM t;\n")
	if !strings.Contains(out, heldText) || e.count("SELECT count(*) FROM t") != 3 {
		t.Fatalf("DELETE FROM t was not held:\n%s", out)
	}
	out = e.psql(addr, "agent", "DELETE FROM t WHERE id = 1;\n")
	if !strings.Contains(out, "DELETE 1") || e.count("SELECT count(*) FROM t WHERE id = 1") != 0 || e.count("SELECT count(*) FROM t") != 2 {
		t.Fatalf("DELETE FROM t WHERE id = 1 did not run alone:\n%s", out)
	}
	c := e.connect(addr, "agent")
	ctx := context.Background()
	if _, err := c.Exec(ctx, "DELETE FROM t WHERE 'a' = 'b'"); err != nil {
		t.Fatalf("DELETE … WHERE 'a' = 'b' (no row) was held: %v", err)
	}
	_, err := c.Exec(ctx, "DELETE FROM t WHERE 'a' = 'a'")
	heldID(t, err)
	_, err = c.Exec(ctx, "DELETE FROM t WHERE id = $1 OR 1 = 1", 2)
	heldID(t, err)
	_, err = c.Exec(ctx, "UPDATE t SET id = 0 WHERE NOT false")
	heldID(t, err)
	if n := e.count("SELECT count(*) FROM t WHERE id IN (2, 3)"); n != 2 {
		t.Fatalf("%d of rows 2 and 3 left after the held statements, want 2", n)
	}
}

// A rule on RUNS_CODE holds a DO block (whose body drops the table) and a
// SELECT of a user's function, neither of which names DROP or DELETE in
// what the analyzer reads; the table and its rows stay.
func TestEffectRunsCodeHoldsDo(t *testing.T) {
	e := newEnv(t)
	addr := e.effectsSidecar()["RUNS_CODE"]
	e.direct("CREATE TABLE t (id int)")
	e.direct("INSERT INTO t VALUES (1)")
	e.direct("CREATE FUNCTION wipe() RETURNS void LANGUAGE plpgsql AS $$BEGIN DELETE FROM t; END$$")
	out := e.psql(addr, "agent", "DO $$BEGIN EXECUTE 'DROP TABLE t'; END$$;\nSELECT wipe();\n")
	if strings.Count(out, heldText) != 2 {
		t.Fatalf("psql does not show two denials:\n%s", out)
	}
	if e.count("SELECT count(*) FROM pg_class WHERE relname = 't'") != 1 || e.count("SELECT count(*) FROM t") != 1 {
		t.Fatalf("the DO block or wipe() ran:\n%s", out)
	}
	if out := e.psql(addr, "agent", "SELECT lower('A') AS l;\n"); !strings.Contains(out, "\n a\n") {
		t.Fatalf("PostgreSQL's own lower() through the RUNS_CODE rule:\n%s", out)
	}
}

// The preset a team writes first, {preset: destructive}, holds a DO block
// whose body drops the table (RUNS_CODE) and an unbounded DELETE, and lets a
// SELECT run; the table and its row stay.
func TestPresetDestructiveHoldsDo(t *testing.T) {
	e := newEnv(t)
	addr := e.effectsSidecar()["destructive"]
	e.direct("CREATE TABLE t (id int)")
	e.direct("INSERT INTO t VALUES (1)")
	out := e.psql(addr, "agent", "DO $$BEGIN EXECUTE 'DROP TABLE t'; END$$;\nDELETE FROM t;\n")
	if strings.Count(out, heldText) != 2 {
		t.Fatalf("psql does not show two denials:\n%s", out)
	}
	if e.count("SELECT count(*) FROM pg_class WHERE relname = 't'") != 1 || e.count("SELECT count(*) FROM t") != 1 {
		t.Fatalf("the DO block or the DELETE ran:\n%s", out)
	}
	if out := e.psql(addr, "agent", "SELECT id FROM t;\n"); !strings.Contains(out, "\n  1\n") {
		t.Fatalf("a SELECT through the destructive preset:\n%s", out)
	}
}
