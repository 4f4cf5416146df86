package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
)

// routineStatements are statements of stored-program bodies that the
// analyzer's block matcher must step over: blocks, loops, CASE and IF as
// statements and as expressions, END as a name, handlers, SIGNAL.
var routineStatements = []string{
	"SELECT 1", "DO 1", "SET @x = CASE WHEN 1 THEN 1 ELSE 2 END", "SELECT REPEAT('a', 2)",
	"SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = 'x'", "RESIGNAL",
	"IF 1 > 0 THEN SELECT 1; END IF", "IF (1>0) THEN SELECT IF(1,2,3); ELSEIF 2 THEN SELECT 2; ELSE SELECT 3; END IF",
	"CASE WHEN 1 THEN SELECT 1; ELSE BEGIN END; END CASE", "CASE 1 WHEN 1 THEN SET @y = CASE WHEN 1 THEN 2 END; END CASE",
	"SELECT CASE WHEN 1 THEN IF(1,2,3) ELSE 3 END", "l1: LOOP LEAVE l1; END LOOP l1", "l2: BEGIN SELECT 1; END l2",
	"WHILE 0 DO SELECT 1; END WHILE", "REPEAT SELECT 1; UNTIL 1 END REPEAT", "FOR i IN 1..2 DO SELECT i; END FOR",
	"BEGIN SELECT 1; END", "BEGIN END", "SELECT 1 AS end", "SELECT `end`", "SELECT 'END; END'",
	"/* END; */ SELECT 1", "/*!50000 SELECT 2 */", "INSERT INTO log VALUES (100)", "SELECT 1 INTO @v",
	"DROP TABLE IF EXISTS nosuch", "CREATE TABLE IF NOT EXISTS nosuch2 (a INT)",
	"`q`: LOOP LEAVE `q`; END LOOP `q`",
	// Block words that only some servers read: MariaDB skips /*!50700 to
	// /*!99999 and versions above its own (a reviewer's bypass).
	"SELECT 1 /*!999999 BEGIN */", "SELECT 1 /*M!999999 IF 1 THEN */", "SELECT 1 /*!50700 x.*/",
	"SELECT 1 /*!999999 ; END */", "SELECT 2 /*!100200 , 1 */", "SELECT 2 /*M!100200 , 1 */",
}

// routineDeclares open a block (DECLARE comes first in MariaDB).
var routineDeclares = []string{
	"DECLARE v INT DEFAULT IF(1,2,3)", "DECLARE EXIT HANDLER FOR SQLSTATE '23000', NOT FOUND SET @a = 1",
	"DECLARE CONTINUE HANDLER FOR 1051 BEGIN SELECT 1; END", "DECLARE CONTINUE HANDLER FOR SQLEXCEPTION IF 1 THEN SELECT 1; END IF",
	"DECLARE c CURSOR FOR SELECT 1 FOR UPDATE",
}

// routineText builds a random CREATE of a stored program with a body of
// routineStatements, followed by INSERT INTO log VALUES (n), and maybe
// mutated (an END dropped or added, a word cut) so that the server's body
// may end elsewhere than a well-formed one would.
func routineText(r *mrand.Rand, n int) string {
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	var body strings.Builder
	switch r.IntN(5) {
	case 0: // a simple statement
		body.WriteString(pick(routineStatements))
	default:
		body.WriteString(pick([]string{"BEGIN ", "lb: BEGIN ", "BEGIN NOT ATOMIC "}))
		for range r.IntN(2) {
			body.WriteString(pick(routineDeclares) + "; ")
		}
		for range 1 + r.IntN(4) {
			body.WriteString(pick(routineStatements) + "; ")
		}
		body.WriteString(pick([]string{"END", "END lb"}))
	}
	var head string
	switch r.IntN(5) {
	case 0:
		head = "CREATE FUNCTION f() RETURNS INT DETERMINISTIC "
		if r.IntN(2) == 0 {
			body.Reset()
			body.WriteString(pick([]string{"RETURN IF(1,2,3)", "RETURN CASE WHEN 1 THEN 2 END", "BEGIN RETURN 1; END", "BEGIN IF 1 THEN RETURN 1; END IF; RETURN 2; END"}))
		}
	case 1:
		head = "CREATE TRIGGER tr BEFORE INSERT ON other FOR EACH ROW "
	case 2:
		head = "CREATE EVENT e ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 DAY DO "
	case 3:
		head = "CREATE OR REPLACE DEFINER = CURRENT_USER PROCEDURE p(IN a INT, OUT b VARCHAR(10)) COMMENT 'x' SQL SECURITY INVOKER "
	default:
		head = "CREATE PROCEDURE p() "
	}
	// What follows may hold an END, so that a body read as ending later
	// than the server's would take the INSERT in.
	text := head + body.String() + fmt.Sprintf("; INSERT INTO log VALUES (%d)", n) +
		pick([]string{"", "; SELECT 1 AS end", "; SELECT CASE WHEN 1 THEN 2 END", "; SELECT 1 AS end; SELECT 2 AS end", "; SELECT 1 AS end IF",
			"; /*!999999 END */", "; /*M!999999 END */", "; /*!50700 END */"})
	if r.IntN(3) == 0 {
		text = mutate(r, text)
	}
	return text
}

// skippedBlockTexts are every stored program whose body holds a block word
// inside an executable comment some servers skip, followed by an INSERT
// and an END only some servers read (a reviewer's bypass: MariaDB skips
// /*!50700 to /*!99999 and versions above its own, so it ends the body at
// the first END and runs the INSERT). n numbers the first text.
func skippedBlockTexts(n int) []string {
	var out []string
	heads := []string{"CREATE PROCEDURE p() ", "CREATE FUNCTION f() RETURNS INT ", "CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO "}
	for _, head := range heads {
		for _, wrap := range []string{"/*!999999 %s */", "/*M!999999 %s */", "/*!50700 %s */", "/*!100200 %s */"} {
			for _, hide := range []string{"BEGIN", "x.", "IF 1 THEN", "LOOP", "CASE 1 WHEN 1 THEN", "WHILE 1 DO", "l: BEGIN"} {
				for _, tail := range []string{"END", "/*!999999 END */", "/*M!999999 END */"} {
					first := "SELECT 1"
					if strings.HasPrefix(head, "CREATE FUNCTION") {
						first = "RETURN 1"
					}
					out = append(out, fmt.Sprintf("%sBEGIN %s; "+wrap+" END; INSERT INTO log VALUES (%d); %s", head, first, hide, n, tail))
					n++
				}
			}
		}
	}
	return out
}

// mutate drops or adds one END, IF or semicolon.
func mutate(r *mrand.Rand, text string) string {
	words := strings.Fields(text)
	i := r.IntN(len(words))
	switch r.IntN(3) {
	case 0:
		return strings.Join(slices.Delete(words, i, i+1), " ")
	case 1:
		return strings.Join(slices.Insert(words, i, []string{"END;", "END", "END IF;", ";", "BEGIN", "IF"}[r.IntN(6)]), " ")
	}
	return strings.Join(slices.Insert(words, i, "; INSERT INTO log VALUES (200);"), " ")
}

// The analyzer ends a stored program's body where MariaDB ends it, or
// sooner: every INSERT INTO log that MariaDB runs after (or instead of) a
// CREATE of a procedure, function, trigger or event is a statement of the
// analyzer's reading, unless it refused the text (issue 31 point 2). Texts
// the server accepts and the analyzer refuses are counted (over-refusals);
// those must all hold END as a name (SELECT 1 AS end), which ends a body
// sooner than the server does.
func TestRoutineBodiesEndWhereTheServerEnds(t *testing.T) {
	admin := localMariaDB(t, nil)
	b := make([]byte, 4)
	rand.Read(b)
	db := "routine_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE DATABASE " + db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + db) })
	pool := localMariaDB(t, func(c *mysql.Config) { c.DBName, c.MultiStatements = db, true })
	ctx := context.Background()
	conn, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE log (n INT); CREATE TABLE other (a INT)"); err != nil {
		t.Fatal(err)
	}
	mode := analyzer.Mode{Charset: "utf8mb4", Exact: true}
	r := mrand.New(mrand.NewPCG(31, 2))
	var accepted, refused, overRefused int
	texts := []string{""} // texts[n] is text n
	for n := 1; n <= 1000; n++ {
		texts = append(texts, routineText(r, n))
	}
	systematic := len(texts) // from here on a refusal is right: some server ends the body elsewhere
	texts = append(texts, skippedBlockTexts(len(texts))...)
	for n := 1; n < len(texts); n++ {
		text := texts[n]
		if _, err := conn.ExecContext(ctx, "DROP PROCEDURE IF EXISTS p; DROP FUNCTION IF EXISTS f; DROP TRIGGER IF EXISTS tr; DROP EVENT IF EXISTS e; DELETE FROM log"); err != nil {
			t.Fatal(err)
		}
		_, runErr := conn.ExecContext(ctx, text)
		res := analyzer.AnalyzeMode(text, db, mode)
		ran := logged(t, conn)
		if res.Err != nil {
			refused++
			if runErr == nil {
				overRefused++
				// END as a name ends a body sooner; a block word in a
				// comment some servers skip makes the body uncheckable.
				if n < systematic && !strings.Contains(text, "AS end") && !strings.Contains(text, "/*!999999") &&
					!strings.Contains(text, "/*M!999999") && !strings.Contains(text, "/*!50700") {
					t.Errorf("text %d: MariaDB ran it, the analyzer refused it (%v):\n%s", n, res.Err, text)
				}
			}
			continue
		}
		accepted++
		for _, v := range ran {
			if !readsInsert(res, db, v) {
				t.Errorf("text %d: MariaDB ran INSERT INTO log VALUES (%d), which the analyzer did not read as a statement of its own:\n%s\nanalysis: %+v", n, v, text, res.Statements)
			}
		}
		if runErr == nil && !strings.Contains(text, "INSERT INTO log VALUES (200)") && !strings.Contains(text, "/*") && !slices.Contains(ran, n) {
			t.Errorf("text %d: the server ran it but not its last INSERT: %s", n, text)
		}
	}
	t.Logf("%d texts: %d read, %d refused (%d of those the server ran whole: over-refusals)", len(texts)-1, accepted, refused, overRefused)
	if accepted < 300 {
		t.Errorf("only %d of 1000 texts read: the block matcher refuses too much", accepted)
	}
}

// logged returns the values in log.
func logged(t *testing.T, conn *sql.Conn) []int {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), "SELECT n FROM log")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// readsInsert reports whether res has a statement of its own that inserts
// into db.log the value v.
func readsInsert(res analyzer.Result, db string, v int) bool {
	for _, st := range res.Statements {
		if slices.Contains(st.Analysis.Actions, "INSERT") && slices.Contains(st.Analysis.Targets, db+".log") &&
			strings.Contains(st.Text, fmt.Sprintf("VALUES (%d)", v)) {
			return true
		}
	}
	return false
}
