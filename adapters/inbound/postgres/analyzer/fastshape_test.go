package analyzer

import (
	"slices"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
)

func TestFastShape(t *testing.T) {
	same := [][2]string{
		{"SELECT abalance FROM pgbench_accounts WHERE aid = 1;", "SELECT abalance FROM pgbench_accounts WHERE aid = 98765;"},
		{"SELECT * FROM t WHERE a = 'x' AND b = 1.5", "SELECT * FROM t WHERE a = 'it''s' AND b = 2e10"},
		{"insert into t values (1, 'a', .5)", "insert into t values (22, '', 3.)"},
		{`UPDATE "T" SET v = $1 WHERE id = 7`, `UPDATE "T" SET v = $1 WHERE id = 8`},
	}
	for _, p := range same {
		a, oka := fastShape(p[0])
		b, okb := fastShape(p[1])
		if !oka || !okb || a != b {
			t.Errorf("%q and %q must share a shape (%v %v)", p[0], p[1], oka, okb)
		}
	}
	differ := [][2]string{
		{"SELECT * FROM t WHERE a = 1", "SELECT * FROM u WHERE a = 1"},
		{"SELECT lower('a')", "SELECT upper('a')"},
		{"SELECT 'a' FROM t", "SELECT a FROM t"},
		{"SELECT * FROM t WHERE a = '1'", "SELECT * FROM t WHERE a = 1"},
		{"SELECT $1", "SELECT $2"},
	}
	for _, p := range differ {
		a, _ := fastShape(p[0])
		b, _ := fastShape(p[1])
		if a == b {
			t.Errorf("%q and %q must not share a shape", p[0], p[1])
		}
	}
	for _, sql := range []string{
		"EXPLAIN (ANALYZE 'false') DELETE FROM t",
		"SELECT 1; DROP TABLE t",
		"SELECT 'a\\'; DROP TABLE t; --'",
		"SELECT 1 -- c",
		"SELECT /* c */ 1",
		"SELECT E'a'",
		"SELECT 'a'\n'b'",
		"SELECT $$a$$",
		"SELECT 1abc",
		"SELECT 0x1F",
		"SELECT 1_000",
		"SELECT 1e",
		"SELECT 1..2",
		"SELECT 'é'",
		"DROP TABLE t",
		"(SELECT 1)",
		"",
		"SELECT 'unterminated",
		`DELETE FROM U&"secre#0074" UESCAPE '#'`,
	} {
		if _, ok := fastShape(sql); ok {
			t.Errorf("%q must be left to shapeKey", sql)
		}
	}
}

// FuzzFastShape checks fastShape against PostgreSQL's scanner: a text it
// shapes is one statement the scanner reads, with exactly the constants
// fastShape found, and shapeKey shapes it too.
func FuzzFastShape(f *testing.F) {
	for _, s := range []string{
		"SELECT abalance FROM pgbench_accounts WHERE aid = 12345;",
		"UPDATE pgbench_accounts SET abalance = abalance + -4321 WHERE aid = 5;",
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 2, 3, 4, CURRENT_TIMESTAMP);",
		"SELECT * FROM t WHERE a = 'it''s' AND b = 1.5e-3 AND c = .5",
		`SELECT "a""b" FROM s.t WHERE x::text = $1`,
		"WITH x AS (SELECT 1) SELECT * FROM x",
		"SELECT 1.e5, 2.",
		"VALUES (1), (2)",
		"TABLE t",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		_, consts, ok := fastShapeSpans(sql)
		if !ok {
			return
		}
		res, err := pg.Scan(sql)
		if err != nil {
			t.Fatalf("fastShape shaped %q, which PostgreSQL's scanner refuses: %v", sql, err)
		}
		var want [][2]int
		for _, tok := range res.Tokens {
			switch tok.Token {
			case pg.Token_ICONST, pg.Token_FCONST, pg.Token_SCONST, pg.Token_USCONST, pg.Token_BCONST, pg.Token_XCONST:
				want = append(want, [2]int{int(tok.Start), int(tok.End)})
			case pg.Token_SQL_COMMENT, pg.Token_C_COMMENT, pg.Token_UESCAPE:
				t.Fatalf("fastShape shaped %q, which holds %v", sql, tok.Token)
			}
		}
		if !slices.Equal(consts, want) {
			t.Fatalf("%q: fastShape's constants %v, the scanner's %v", sql, consts, want)
		}
		if _, ok := shapeKey(sql); !ok {
			t.Fatalf("fastShape shaped %q, shapeKey does not", sql)
		}
	})
}

func BenchmarkFastShape(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		fastShape("SELECT abalance FROM pgbench_accounts WHERE aid = 12345;")
	}
}

func BenchmarkShapeKey(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		shapeKey("SELECT abalance FROM pgbench_accounts WHERE aid = 12345;")
	}
}

// BenchmarkCacheAnalyzeShaped is the cache as pgbench -S uses it: a new
// constant each time, the same shape.
func BenchmarkCacheAnalyzeShaped(b *testing.B) {
	c := NewCache()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		c.Analyze("SELECT abalance FROM pgbench_accounts WHERE aid = " + itoa(i) + ";")
	}
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}
