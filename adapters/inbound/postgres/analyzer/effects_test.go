package analyzer

import (
	"slices"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/rulesdoc"
)

// textEffects returns the effects of every statement of sql as a session
// that saw only sql would resolve them: an EXECUTE adds what a PREPARE
// earlier in the text read, or domain.UnreadRun's effects.
func textEffects(sql string) []string {
	var out []string
	prepared := map[string]domain.Analysis{}
	for _, st := range Analyze(sql).Statements {
		out = domain.AddEffects(out, st.Analysis.Effects...)
		if st.Prepare != nil {
			prepared[st.Prepare.Name] = st.Prepare.Analysis
		}
		if st.Execute != "" {
			p, ok := prepared[st.Execute]
			if !ok {
				p = domain.UnreadRun()
			}
			out = domain.AddEffects(out, p.Effects...)
		}
	}
	return out
}

// Every postgres row of docs/rules.md's effects table is what the analyzer
// reports (as a set).
func TestEffectsTable(t *testing.T) {
	rulesdoc.Check(t, "postgres", 25, func(s string) ([]string, error) { return textEffects(s), nil })
}

// Texts of one shape whose constants decide UNBOUNDED each get their own
// answer from the cache: `WHERE 1 = 1` does not stand for `WHERE 1 = 2`,
// nor the other way round, while `WHERE id = 1` still shares its analysis
// with `WHERE id = 2`.
func TestCacheKeepsFoldedConstantsApart(t *testing.T) {
	unbounded := func(r Result) bool {
		return slices.Contains(r.Statements[0].Analysis.Effects, domain.EffectUnbounded)
	}
	for _, order := range [][2]string{
		{"DELETE FROM t WHERE 1 = 2", "DELETE FROM t WHERE 1 = 1"},
		{"DELETE FROM t WHERE 'a' = 'b'", "DELETE FROM t WHERE 'a' = 'a'"},
		{"UPDATE t SET a = 1 WHERE id = 5 OR 'x' = 'y'", "UPDATE t SET a = 1 WHERE id = 5 OR 'x' = 'x'"},
	} {
		c := newCache(1 << 20)
		if unbounded(c.Analyze(order[0])) {
			t.Fatalf("%s: UNBOUNDED, want not", order[0])
		}
		if !unbounded(c.Analyze(order[1])) {
			t.Errorf("%s after %s: not UNBOUNDED from the cache", order[1], order[0])
		}
		c = newCache(1 << 20)
		c.Analyze(order[1])
		if unbounded(c.Analyze(order[0])) {
			t.Errorf("%s after %s: UNBOUNDED from the cache", order[0], order[1])
		}
	}
	analysed := 0
	testHook = func(string) { analysed++ }
	defer func() { testHook = nil }()
	c := newCache(1 << 20)
	c.Analyze("DELETE FROM t WHERE id = 1")
	c.Analyze("DELETE FROM t WHERE id = 2")
	if analysed != 1 {
		t.Errorf("`WHERE id = 1` then `WHERE id = 2`: %d analyses, want 1 (the second found by its shape)", analysed)
	}
}

// Reading a condition never under-reports what the rule on UNBOUNDED must
// see: a WHERE with no column is UNBOUNDED unless it folds to false or NULL.
func TestWhereFolding(t *testing.T) {
	for where, want := range map[string]bool{
		"":                                   true,
		"WHERE false":                        false,
		"WHERE NULL":                         false,
		"WHERE 'off'":                        false,
		"WHERE 'on'":                         true,
		"WHERE 'yes'":                        true,
		"WHERE 0::boolean":                   false,
		"WHERE 2::boolean":                   true,
		"WHERE NOT (1 = 2)":                  true,
		"WHERE 1 < 2":                        true,
		"WHERE 1.5 >= 2":                     false,
		"WHERE 1 <> 1":                       false,
		"WHERE 'a' != 'b'":                   true,
		"WHERE 'a' < 'b'":                    true, // not folded (collations), no column: maybe all
		"WHERE 1 = '1'":                      true, // two kinds: not folded, no column
		"WHERE NULL IS NULL":                 true,
		"WHERE 1 IS NULL":                    false,
		"WHERE true IS TRUE":                 true,
		"WHERE NULL IS NOT FALSE":            true,
		"WHERE NULL IS DISTINCT FROM 1":      true,
		"WHERE 1 IS NOT DISTINCT FROM 1":     true,
		"WHERE id = 5 AND NULL":              false,
		"WHERE id = 5 OR NULL":               false,
		"WHERE id = 5 OR $1":                 true,
		"WHERE id = 5 AND $1":                false,
		"WHERE a OR NOT false":               true,
		"WHERE a IS NOT DISTINCT FROM a":     true,
		"WHERE id OPERATOR(pg_catalog.=) id": false, // qualified operators: not read
		"WHERE EXISTS (SELECT 1)":            true,
		"WHERE random() < 0.5":               true,
		"WHERE (SELECT count(*) FROM u) > 0": true,
		"WHERE id IN (SELECT id FROM u)":     false,
	} {
		r := Analyze("DELETE FROM t " + where)
		if r.Err != nil {
			t.Fatalf("%s: %v", where, r.Err)
		}
		got := slices.Contains(r.Statements[0].Analysis.Effects, domain.EffectUnbounded)
		if got != want {
			t.Errorf("DELETE FROM t %s: UNBOUNDED %v, want %v", where, got, want)
		}
	}
}

// Every statement node of PostgreSQL's parse tree has effects or is named
// as having none: a node added by a new parser version fails closed
// (UNKNOWN) and this test names it.
func TestEveryStatementNodeIsNamed(t *testing.T) {
	w := newWalker()
	for _, a := range vocabularyNodes() {
		w.effects = map[string]struct{}{}
		w.effect(a)
		if _, unknown := w.effects[domain.EffectUnknown]; unknown {
			t.Errorf("%s has no effects of its own (effects.go): it reads as UNKNOWN", a.ProtoReflect().Descriptor().Name())
		}
	}
}

// vocabularyNodes returns a zero value of each statement node of pg_query's
// parse tree.
func vocabularyNodes() []proto.Message {
	var out []proto.Message
	msgs := pg.File_pg_query_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		name := string(msgs.Get(i).Name())
		if !strings.HasSuffix(name, "Stmt") || name == "RawStmt" {
			continue
		}
		mt, err := protoregistry.GlobalTypes.FindMessageByName(msgs.Get(i).FullName())
		if err != nil {
			continue
		}
		out = append(out, mt.New().Interface())
	}
	return out
}

// FuzzEffects checks what lets the cache share an analysis across a shape
// (cache.go): a text whose analysis read no constant's value (not
// constants) gets the same actions and effects as the text with each
// constant replaced by another of its kind, and reading constants is a
// property of the shape, not of the values.
func FuzzEffects(f *testing.F) {
	for _, s := range []string{
		"DELETE FROM t WHERE 1 = 1", "DELETE FROM t WHERE 'a' = 'b'", "DELETE FROM t WHERE id = 5 OR 1 = 2",
		"UPDATE t SET a = 1 WHERE id = 5", "UPDATE t SET a = 'x' WHERE 't'", "DELETE FROM t WHERE 0::boolean",
		"DELETE FROM t WHERE NOT (1.5 >= 2) AND id = 3", "DELETE FROM t WHERE 1 IS NOT DISTINCT FROM 2",
		"WITH d AS (DELETE FROM t WHERE 2 < 1 RETURNING *) SELECT * FROM d",
		"SELECT pg_read_file('x', 1, 2)", "INSERT INTO t VALUES (1, 'a')",
		"DELETE FROM t WHERE 'off' IS TRUE", "DELETE FROM t WHERE NULL IS NULL OR 1 = 1",
		"MERGE INTO t USING (VALUES (1, 'a')) s(id, v) ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 'b'",
		"MERGE INTO t USING (SELECT 1 AS k) s ON s.k = 2 WHEN MATCHED THEN DELETE",
		"INSERT INTO t SELECT 1, 'a' ON CONFLICT (id) DO UPDATE SET v = 'b'",
		"UPDATE t AS x SET v = 1 WHERE x.id = id AND 1 = 2",
		"ALTER TABLE t ALTER COLUMN v TYPE numeric(10, 2) USING 0",
	} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, sql string, seed uint8) {
		_, consts, ok := fastShapeSpans(sql)
		if !ok || len(consts) == 0 || len(sql) > 4096 {
			return
		}
		r := Analyze(sql)
		if r.Err != nil || len(r.Statements) != 1 {
			return
		}
		// Another constant of each kind: a number for a number, a string for a string.
		var b strings.Builder
		last := 0
		for i, c := range consts {
			b.WriteString(sql[last:c[0]])
			pick := (int(seed) + i) % 3
			if sql[c[0]] == '\'' {
				b.WriteString([]string{"'a'", "'b'", "'on'"}[pick])
			} else {
				b.WriteString([]string{"0", "1", "2.5"}[pick])
			}
			last = c[1]
		}
		b.WriteString(sql[last:])
		other := b.String()
		if k1, _ := fastShape(sql); func() bool { k2, ok := fastShape(other); return !ok || k1 != k2 }() {
			return // the replacement changed the shape (a number became a string's neighbour…)
		}
		o := Analyze(other)
		if o.Err != nil || len(o.Statements) != 1 {
			return
		}
		a, x := r.Statements[0], o.Statements[0]
		if a.constants != x.constants {
			t.Fatalf("%q reads constants %v, %q (same shape) %v", sql, a.constants, other, x.constants)
		}
		if !a.constants && (!slices.Equal(a.Analysis.Effects, x.Analysis.Effects) || !slices.Equal(a.Analysis.Actions, x.Analysis.Actions)) {
			t.Fatalf("%q: %v %v; %q (same shape): %v %v", sql, a.Analysis.Actions, a.Analysis.Effects,
				other, x.Analysis.Actions, x.Analysis.Effects)
		}
	})
}

// A MERGE's WHEN MATCHED write, an upsert and a self-comparison are
// UNBOUNDED unless the statement's text bounds the rows it reaches: the
// source is constants and the ON condition names a column of the target.
func TestWriteScope(t *testing.T) {
	for sql, want := range map[string]bool{
		"MERGE INTO t USING u s ON t.id = s.id WHEN MATCHED THEN DELETE":                                       true,
		"MERGE INTO t USING (SELECT id FROM u) s ON t.id = s.id WHEN MATCHED THEN DELETE":                      true,
		"MERGE INTO t USING (SELECT generate_series(1, 9) AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE":    true,
		"MERGE INTO t USING (VALUES ((SELECT max(id) FROM t))) s(id) ON t.id <= s.id WHEN MATCHED THEN DELETE": true,
		"MERGE INTO t USING (VALUES (1)) s(id) ON t.id = s.id WHEN MATCHED THEN DELETE":                        false,
		"MERGE INTO t USING (VALUES (1)) s ON t.id = s.column1 WHEN MATCHED THEN DELETE":                       false,
		"MERGE INTO t AS x USING (VALUES (1)) s(k) ON id = k WHEN MATCHED THEN DELETE":                         false,
		"MERGE INTO t AS x USING (VALUES (1)) s(k) ON k = k WHEN MATCHED THEN DELETE":                          true,
		"MERGE INTO t AS x USING (VALUES (1)) s(k) ON t.id = k WHEN MATCHED THEN DELETE":                       true, // t is not the target's name here
		"MERGE INTO t USING (SELECT $1 AS id, $2) s ON id = s.id WHEN MATCHED THEN DELETE":                     true, // an unnamed column: id may be the source's
		"MERGE INTO t USING (SELECT $1 AS k) s ON t.id = s.k OR s.k > 0 WHEN MATCHED THEN DELETE":              true,
		"MERGE INTO t USING (SELECT $1 AS k) s ON t.id = s.k WHEN NOT MATCHED THEN INSERT VALUES (1)":          false,
		"MERGE INTO t USING (SELECT $1 AS k) s ON t.id = s.k WHEN NOT MATCHED BY SOURCE THEN DELETE":           true,
		"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET v = 2":                                        false,
		"INSERT INTO t DEFAULT VALUES ON CONFLICT (id) DO UPDATE SET v = 2":                                    false,
		"INSERT INTO t SELECT id FROM u ON CONFLICT (id) DO UPDATE SET v = 2":                                  true,
		"INSERT INTO t SELECT generate_series(1, 9) ON CONFLICT (id) DO UPDATE SET v = 2":                      true,
		"INSERT INTO t SELECT * FROM t ON CONFLICT DO NOTHING":                                                 false,
		"UPDATE t SET v = 1 WHERE t.id = id":                                                                   true,
		"UPDATE public.t SET v = 1 WHERE public.t.id = t.id":                                                   true,
		"UPDATE t AS x SET v = 1 WHERE x.id >= id":                                                             true,
		"UPDATE t AS x SET v = 1 WHERE t.id = id":                                                              false, // t is not the table's name here
		"UPDATE t SET v = 1 FROM u WHERE u.id = id":                                                            false,
		"DELETE FROM t WHERE (id) = (t.id)":                                                                    true,
		"DELETE FROM t WHERE t.id = t.v":                                                                       false,
	} {
		got := slices.Contains(textEffects(sql), domain.EffectUnbounded)
		if got != want {
			t.Errorf("%s: UNBOUNDED %v, want %v", sql, got, want)
		}
	}
}
