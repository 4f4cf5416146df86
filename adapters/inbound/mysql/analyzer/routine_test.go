package analyzer

import (
	"slices"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// A stored program is decided by its head, whatever its body holds
// (issue 31 point 2): what it creates and its name, no UNKNOWN, no error.
// What follows the body is read as statements of their own.
func TestStoredProgramsAreDecidedByTheirHead(t *testing.T) {
	for sql, want := range map[string][]string{
		"CREATE PROCEDURE p() BEGIN SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = 'x'; END":                                                                          {"CREATE", "CREATE_PROCEDURE"},
		"CREATE PROCEDURE p() BEGIN DECLARE x INT; SELECT 1 INTO x; DO 1; RESIGNAL; END":                                                                          {"CREATE", "CREATE_PROCEDURE"},
		"create definer=`a`@`%` procedure db2.p(IN a INT) COMMENT 'x' BEGIN CALL q(); SET NAMES latin1; END":                                                      {"CREATE", "CREATE_PROCEDURE"},
		"CREATE OR REPLACE FUNCTION f(a INT) RETURNS VARCHAR(10) CHARACTER SET utf8 DETERMINISTIC RETURN IF(a, 'y', 'n')":                                         {"CREATE", "CREATE_FUNCTION", "ALTER", "ALTER_FUNCTION"},
		"CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1":                                                                                         {"CREATE", "CREATE_TRIGGER"},
		"CREATE EVENT IF NOT EXISTS e ON SCHEDULE EVERY 1 DAY DO BEGIN DELETE FROM t; END":                                                                        {"CREATE", "CREATE_EVENT"},
		"CREATE PROCEDURE p() l1: BEGIN DECLARE EXIT HANDLER FOR SQLSTATE '23000', NOT FOUND BEGIN END; l2: LOOP IF 1 THEN LEAVE l2; END IF; END LOOP l2; END l1": {"CREATE", "CREATE_PROCEDURE"},
	} {
		r := AnalyzeMode(sql, "app", Mode{Charset: "utf8mb4", Exact: true})
		if r.Err != nil || len(r.Statements) != 1 || r.Statements[0].Text != sql {
			t.Errorf("%q: %v %+v, want one statement", sql, r.Err, r.Statements)
			continue
		}
		got := r.Statements[0].Analysis.Actions
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: actions %v, want %v", sql, got, want)
		}
	}
	// mariadb-dump's form, a quoted label: read.
	for _, sql := range []string{
		"/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END */",
		"CREATE PROCEDURE p() BEGIN `l`: LOOP LEAVE `l`; END LOOP `l`; END",
		"CREATE PROCEDURE p() BEGIN SELECT 1 /*!100200 , 2 */; END",
	} {
		if r := Analyze(sql, "app"); r.Err != nil || hasAction(r, domain.ActionUnknown) {
			t.Errorf("%q: %v %+v, want it read", sql, r.Err, r.Statements)
		}
	}
	r := Analyze("CREATE TRIGGER app2.tr AFTER DELETE ON `or``ders` FOR EACH ROW FOLLOWS tr0 INSERT INTO log VALUES (1)", "app")
	has(t, "a trigger", "targets", r.Statements[0].Analysis.Targets, "app2.tr", "app.or`ders")
}

// The body ends where the server ends it, or sooner: never later, so no
// statement after it is taken in.
func TestStoredProgramBodiesEnd(t *testing.T) {
	for sql, rest := range map[string]string{
		"CREATE PROCEDURE p() BEGIN IF (1>0) THEN SELECT CASE WHEN 1 THEN IF(1,2,3) END; END IF; END; DELETE FROM t":          "DELETE FROM t",
		"CREATE PROCEDURE p() SELECT IF(1,2,3); DELETE FROM t":                                                                "DELETE FROM t",
		"CREATE FUNCTION f() RETURNS INT RETURN CASE WHEN 1 THEN 2 END; DELETE FROM t":                                        "DELETE FROM t",
		"CREATE PROCEDURE p() BEGIN SELECT REPEAT('a', 2); SELECT t.case FROM t; END; DELETE FROM t":                          "DELETE FROM t",
		"CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO DELETE FROM a; DELETE FROM t":                                              "DELETE FROM t",
		"CREATE PROCEDURE p() BEGIN WHILE 0 DO SELECT 1; END WHILE; REPEAT SELECT 1; UNTIL 1 END REPEAT; END;\nDELETE FROM t": "DELETE FROM t",
	} {
		r := AnalyzeMode(sql, "app", Mode{Charset: "utf8mb4", Exact: true})
		if r.Err != nil || len(r.Statements) < 2 || r.Statements[1].Text != rest || !hasAction(r, "DELETE") {
			t.Errorf("%q: %v %+v, want the body, then %q", sql, r.Err, r.Statements, rest)
		}
	}
	for _, sql := range []string{
		"CREATE PROCEDURE p() BEGIN SELECT 1 AS end; END; DELETE FROM t", // END as a name: sooner, then unreadable
		"CREATE PROCEDURE p() BEGIN SELECT 1; DELETE FROM t",             // no END
		"CREATE PROCEDURE p() BEGIN SELECT 1; END DELETE FROM t",         // END then no semicolon
		"CREATE FUNCTION f RETURNS STRING SONAME 'udf.so'",               // a UDF: no body
		"CREATE FUNCTION f() RETURNS DECIMAL(10; DELETE FROM t",          // the type's ( not closed
		"CREATE PROCEDURE p() BEGIN SELECT 1; END; SELECT 'a",            // the rest is unreadable
		"CREATE PROCEDURE p() SELECT IF(1,2,3); DELETE FROM t; SELECT 1 END IF",
		// A block word only some servers read (MariaDB skips /*!50700 to
		// /*!99999 and versions above its own): MariaDB ends the body at
		// the first END and runs the DELETE (a reviewer's bypass).
		"CREATE PROCEDURE p() BEGIN SELECT 1; /*!999999 BEGIN*/ END; DELETE FROM t; END",
		"CREATE PROCEDURE p() BEGIN SELECT 1; /*!999999 BEGIN */ END; DELETE FROM t; /*!999999 END */",
		"CREATE PROCEDURE p() BEGIN SELECT 1; /*!50700 x.*/ END; DELETE FROM t; END",
		"CREATE PROCEDURE p() BEGIN SELECT 1; /*M!999999 IF 1 THEN */ END; DELETE FROM t; END",
		"CREATE TRIGGER tr AFTER INSERT ON log FOR EACH ROW BEGIN /*!999999 BEGIN */ END; DELETE FROM t; END",
		"/*!99999 CREATE PROCEDURE p() BEGIN */ DELETE FROM t; /*!99999 END */",
	} {
		if r := Analyze(sql, "app"); r.Err == nil || !hasAction(r, domain.ActionUnknown) {
			t.Errorf("%q: %+v, want UNKNOWN with an error", sql, r)
		}
	}
}
