package mysqlconf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Rules on effects (issue 25, docs/rules.md) through the mariadb CLI: a
// rule on INSERT holds LOAD DATA LOCAL INFILE (the file is not sent, the
// table keeps its rows); a rule on UNBOUNDED holds DELETE FROM t and lets
// DELETE FROM t WHERE id = 1 run; a rule on RUNS_CODE holds CALL of a
// procedure whose body deletes, and the rows stay, and PREPARE … FROM a
// variable, while EXECUTE of a SELECT the listener read runs.
func TestCLIEffectsRules(t *testing.T) {
	e := newEnvNamed(t, "effects")
	e.direct("CREATE TABLE t (id int PRIMARY KEY, name varchar(20)); INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	e.direct("CREATE PROCEDURE wipe() DELETE FROM t")

	t.Run("INSERT holds LOAD DATA LOCAL", func(t *testing.T) {
		addr, _ := e.sidecar(listenerOpts{match: "{effects: [INSERT]}"})
		file := filepath.Join(t.TempDir(), "rows.tsv")
		if err := os.WriteFile(file, []byte("10\tx\n11\ty\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := e.cli(addr, fmt.Sprintf("LOAD DATA LOCAL INFILE '%s' INTO TABLE t;\nSELECT count(*) AS n FROM t;\n", file), "--local-infile=1")
		if !strings.Contains(out, "ERROR 1227 (42000) at line 1: "+heldText) || len(approvalIDs(out)) != 1 {
			t.Fatalf("LOAD DATA LOCAL INFILE was not held:\n%s", out)
		}
		if !strings.Contains(out, "n\n3") {
			t.Fatalf("the session's SELECT after the held LOAD DATA:\n%s", out)
		}
		if n := e.count("SELECT count(*) FROM t"); n != 3 {
			t.Fatalf("t has %d rows after the held LOAD DATA, want 3", n)
		}
	})

	t.Run("UNBOUNDED holds DELETE without WHERE only", func(t *testing.T) {
		addr, _ := e.sidecar(listenerOpts{match: "{effects: [UNBOUNDED]}"})
		out := e.cli(addr, "DELETE FROM t;\nDELETE FROM t WHERE 1 = 1;\nDELETE FROM t WHERE id = 1;\n")
		if strings.Count(out, "ERROR 1227 (42000)") != 2 || len(approvalIDs(out)) != 2 {
			t.Fatalf("want DELETE FROM t and DELETE … WHERE 1 = 1 held, the third run:\n%s", out)
		}
		if strings.Contains(out, "at line 3") {
			t.Fatalf("DELETE FROM t WHERE id = 1 was refused:\n%s", out)
		}
		if n := e.count("SELECT count(*) FROM t"); n != 2 {
			t.Fatalf("t has %d rows, want 2 (only id 1 deleted)", n)
		}
		if n := e.count("SELECT count(*) FROM t WHERE id = 1"); n != 0 {
			t.Fatal("row 1 is still there")
		}
	})

	t.Run("preset destructive holds CALL", func(t *testing.T) {
		addr, _ := e.sidecar(listenerOpts{match: "{preset: destructive}"})
		out := e.cli(addr, "CALL wipe();\nSELECT count(*) AS n FROM t;\n")
		if !strings.Contains(out, "ERROR 1227 (42000) at line 1: "+heldText) {
			t.Fatalf("CALL wipe() was not held:\n%s", out)
		}
		if n := e.count("SELECT count(*) FROM t"); n != 2 {
			t.Fatalf("t has %d rows after the held CALL, want 2", n)
		}
	})

	t.Run("RUNS_CODE holds CALL", func(t *testing.T) {
		addr, _ := e.sidecar(listenerOpts{match: "{effects: [RUNS_CODE]}"})
		out := e.cli(addr, "CALL wipe();\nSELECT count(*) AS n FROM t;\n")
		if !strings.Contains(out, "ERROR 1227 (42000) at line 1: "+heldText) {
			t.Fatalf("CALL wipe() was not held:\n%s", out)
		}
		if n := e.count("SELECT count(*) FROM t"); n != 2 {
			t.Fatalf("t has %d rows after the held CALL, want 2", n)
		}
		// EXECUTE of a text the listener read carries that text's effects,
		// not RUNS_CODE; PREPARE of a text in a variable is RUNS_CODE.
		out = e.cli(addr, "PREPARE k FROM 'SELECT 7 AS seven';\nEXECUTE k;\nSET @q = 'DELETE FROM t';\nPREPARE d FROM @q;\n")
		if !strings.Contains(out, "seven\n7") || strings.Contains(out, "at line 2") {
			t.Fatalf("EXECUTE of a read SELECT was held:\n%s", out)
		}
		if !strings.Contains(out, "ERROR 1227 (42000) at line 4: "+heldText) {
			t.Fatalf("PREPARE … FROM @q was not held:\n%s", out)
		}
	})
}
