package analyzer

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

var fuzzSeeds = []string{
	"CREATE PROCEDURE p() BEGIN IF 1 THEN SIGNAL SQLSTATE '45001'; END IF; END; DELETE FROM t",
	"CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO l: LOOP SELECT CASE WHEN 1 THEN 2 END; END LOOP l; DROP TABLE t",
	"SELECT 1", "SELECT 1; DROP TABLE t", "SELECT 1 /*!50000 ; DROP TABLE t */", "SELECT 1 /*M!100100 , 2 */",
	"/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;", "INSERT INTO `t` VALUES (1,'a\\'b'),(2,\"c\\\"\")",
	"SELECT 'a\\'; DROP TABLE t; -- '", "KILL QUERY 42", "USE `db`", "LOAD DATA LOCAL INFILE 'x' INTO TABLE t",
	"PREPARE s FROM 'PREPARE t FROM ''DELETE FROM u'''", "DELETE FROM t RETURNING *", "SELECT 1 -- x\n; SELECT 2 # y",
	"SELECT * FROM a JOIN b USING (id) WHERE x IN (SELECT y FROM c) FOR UPDATE", "GRANT ALL ON *.* TO u",
	"WITH c AS (SELECT 1) SELECT * FROM c UNION SELECT 2", "SELECT @@global.x, @'y', `a``b`, \"s\"\"t\"", "/*", "/*!", "'",
	"SELECT ((((1))))", "CREATE PROCEDURE p() BEGIN SELECT 1; END", "SELECT 1--1", "SELECT 1 --\x01x",
	"DELETE FROM t WHERE id = 1 OR 1", "UPDATE t1, t2 SET t1.a = 1 WHERE NOT (t1.id = 2 AND 0) IS FALSE",
	"DELETE a FROM t1 AS a LEFT JOIN t2 USING (id) WHERE a.x = a.x",
	"DELETE FROM t /*!99999 WHERE id = 1 */; /*M!100500 USE d */", "/*!99999 EXPLAIN */ UPDATE t SET a = 1 /*!50700 WHERE id = 2 */",
	"SELECT count (1), `now`(), mid/**/('a', 1)", "ALTER IGNORE TABLE t ADD UNIQUE (v)",
	"INSERT INTO t SELECT * FROM t ON DUPLICATE KEY UPDATE v = NULL", "DELETE FROM t WHERE EXISTS (SELECT t.id) OR (id) = (t.id)",
	"UPDATE t JOIN t s ON t.id = s.id SET t.v = 1",
	"SELECT 1 /*!40001 ,1 */ /*!40002 ,1 */ /*!40003 ,1 */ /*!40004 ,1 */ /*!40005 ,1 */ /*!40006 ,1 */ /*!40007 ,1 */ /*!40008 ,1 */",
}

// FuzzAnalyze: Analyze never panics; a failure is one UNKNOWN statement
// with the whole text; every action is in the vocabulary; statement texts
// are parts of the text; every effect is in domain.Effects, an UNKNOWN
// statement carries the UNKNOWN effect; the cache answers as Analyze does
// (effects too, though texts of one shape share an entry).
func FuzzAnalyze(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "app")
	}
	c := NewCache()
	f.Fuzz(func(t *testing.T, sql, db string) {
		r := Analyze(sql, db)
		if r.Err != nil {
			if len(r.Statements) != 1 || !slices.Contains(r.Statements[0].Analysis.Actions, domain.ActionUnknown) || r.Statements[0].Text != sql {
				t.Fatalf("%q: error %v with %+v", sql, r.Err, r.Statements)
			}
		}
		for _, st := range r.Statements {
			if !strings.Contains(sql, st.Text) {
				t.Fatalf("%q: statement text %q is not part of it", sql, st.Text)
			}
			for _, a := range st.Analysis.Actions {
				if !IsAction(a) {
					t.Fatalf("%q: action %q is not in the vocabulary", sql, a)
				}
			}
			for _, e := range st.Analysis.Effects {
				if !domain.IsEffect(e) {
					t.Fatalf("%q: effect %q is not in the vocabulary", sql, e)
				}
			}
			if slices.Contains(st.Analysis.Actions, domain.ActionUnknown) && !slices.Contains(st.Analysis.Effects, domain.EffectUnknown) {
				t.Fatalf("%q: UNKNOWN action without the UNKNOWN effect: %+v", sql, st.Analysis)
			}
		}
		got := c.Analyze(sql, db)
		if fmt.Sprint(got.Err) != fmt.Sprint(r.Err) || !reflect.DeepEqual(got.Statements, r.Statements) {
			t.Fatalf("%q: cache %+v %v, analyze %+v %v", sql, got.Statements, got.Err, r.Statements, r.Err)
		}
	})
}

// FuzzExecutableComments: the lexical step only blanks comments and the
// markers of executable comments (same length, tokens untouched), and what
// an executable comment holds is analysed as if written inline.
func FuzzExecutableComments(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "; DROP TABLE t")
	}
	f.Add("SELECT 1 ", ", SLEEP(1)")
	f.Add("SELECT * FROM t ", "FOR UPDATE")
	f.Fuzz(func(t *testing.T, sql, inner string) {
		for _, m := range []Mode{{}, {NoBackslashEscapes: true}, {ANSIQuotes: true}} {
			l := lex(sql, m)
			if len(l.code) != len(sql) {
				t.Fatalf("%q: code is %d bytes, text %d", sql, len(l.code), len(sql))
			}
			for i := 0; i < len(sql); i++ {
				if l.code[i] != sql[i] && l.code[i] != ' ' {
					t.Fatalf("%q: byte %d changed to %q", sql, i, l.code[i])
				}
			}
			last := 0
			for _, tk := range l.toks {
				if tk.start < last || tk.end <= tk.start || tk.end > len(sql) || l.code[tk.start:tk.end] != sql[tk.start:tk.end] {
					t.Fatalf("%q: token %+v", sql, tk)
				}
				last = tk.end
			}
		}
		if strings.ContainsAny(inner, "*/#-'\"`\\") || strings.ContainsAny(sql, "*/#-'\"`\\") {
			return
		}
		plain := Analyze(sql+" "+inner, "app")
		for _, marker := range []string{"/*!", "/*!50000 ", "/*M!100100 "} {
			exec := Analyze(sql+" "+marker+inner+" */", "app")
			if plain.Err != nil || exec.Err != nil {
				continue
			}
			if len(plain.Statements) != len(exec.Statements) {
				t.Fatalf("%q + %q: %d statements inline, %d in %s", sql, inner, len(plain.Statements), len(exec.Statements), marker)
			}
			for i := range plain.Statements {
				if !reflect.DeepEqual(plain.Statements[i].Analysis, exec.Statements[i].Analysis) {
					t.Fatalf("%q + %q: %+v inline, %+v in %s", sql, inner, plain.Statements[i].Analysis, exec.Statements[i].Analysis, marker)
				}
			}
		}
	})
}
