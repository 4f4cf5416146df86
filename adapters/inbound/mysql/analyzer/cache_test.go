package analyzer

import (
	"fmt"
	"reflect"
	"testing"
)

// The cache answers exactly what Analyze answers: for the text, and for
// texts that differ from a cached one only in constants and comments.
func TestCacheAnswersAsAnalyze(t *testing.T) {
	c := newCache(64 << 10)
	texts := []string{
		"SELECT * FROM users WHERE id = 1",
		"SELECT * FROM users WHERE id = 2",
		"SELECT * FROM users WHERE id = 2 /* trace=abc */",
		"SELECT * FROM users WHERE name = 'bob'",
		"SELECT * FROM users WHERE name = 'alice' -- note",
		"DELETE FROM users WHERE id = 3",
		"DELETE FROM users WHERE id = 4;",
		"SELECT * FROM db.5", // a number after a dot stays as written
		"SELECT * FROM db.6",
		"SELECT 1abc FROM t", "SELECT 2abc FROM t",
		"INSERT INTO t VALUES ('it\\'s')", // read in several modes: not shaped
		"INSERT INTO t VALUES ('its')",
		"SELECT 1 /*!50000 ; DROP TABLE t */",
		"SELECT 1 /*!50000 , 2 */",
		"SELECT 1; DROP TABLE t",
		"SELECT SLEEP(1)", "SELECT SLEEP(2)",
		"KILL 5", "KILL 6", "USE a", "USE b",
	}
	for round := 0; round < 2; round++ {
		for _, db := range []string{"app", "other", ""} {
			for _, sql := range texts {
				got, want := c.Analyze(sql, db), Analyze(sql, db)
				if fmt.Sprint(got.Err) != fmt.Sprint(want.Err) || !reflect.DeepEqual(got.Statements, want.Statements) {
					t.Errorf("round %d, db %q, %q:\n cache   %+v %v\n analyze %+v %v", round, db, sql, got.Statements, got.Err, want.Statements, want.Err)
				}
			}
		}
	}
}

// Texts that differ only in constants share one shape; others do not.
func TestShapeKey(t *testing.T) {
	same := [][2]string{
		{"SELECT * FROM t WHERE id = 1", "SELECT * FROM t WHERE id = 23 -- c"},
		{"UPDATE t SET a = 'x' WHERE id = 1.5", "UPDATE t SET a = \"y\" WHERE id = 2.25e3"},
	}
	for _, p := range same {
		a, okA := shapeKey(p[0], Mode{})
		b, okB := shapeKey(p[1], Mode{})
		if !okA || !okB || a != b {
			t.Errorf("%q and %q: want one shape", p[0], p[1])
		}
	}
	differ := [][2]string{
		{"SELECT * FROM t", "SELECT * FROM u"},
		{"SELECT * FROM db.5", "SELECT * FROM db.6"},
		{"SELECT 1abc", "SELECT 2abc"},
		{"SELECT `a`", "SELECT `b`"},
		{"SELECT @a", "SELECT @b"},
	}
	for _, p := range differ {
		a, _ := shapeKey(p[0], Mode{})
		b, _ := shapeKey(p[1], Mode{})
		if a == b && a != "" {
			t.Errorf("%q and %q share a shape", p[0], p[1])
		}
	}
	for _, sql := range []string{"SELECT 1; SELECT 2", "DROP TABLE t", "KILL 5", "SELECT 'a\\'b'", "SELECT '", "PREPARE s FROM 'x'", ""} {
		if _, ok := shapeKey(sql, Mode{}); ok {
			t.Errorf("%q must not be shaped", sql)
		}
	}
}
