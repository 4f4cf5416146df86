package mysqlconf

import (
	"strings"
	"testing"
)

// The mariadb CLI through a listener with one rule on DROP_DATABASE
// (issue 31 point 2): a CREATE PROCEDURE whose body the parser's grammar
// does not know (SIGNAL, SELECT … INTO a local, a handler) succeeds as it
// does directly, and the procedure then works through the listener as
// directly (CALL gets the SIGNAL's 45001). A DROP DATABASE after a body in
// the same text is still held.
func TestCLICreateProcedureAsDirectly(t *testing.T) {
	e := newEnv(t)
	addr, _ := e.sidecar(listenerOpts{actions: "[DROP_DATABASE]"})
	script := func(suffix string) string {
		return "DELIMITER //\n" +
			"CREATE PROCEDURE p" + suffix + "() BEGIN SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = 'x'; END//\n" +
			"CREATE PROCEDURE q" + suffix + "() BEGIN DECLARE v INT; DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET v = 2; SELECT 7 INTO v; SELECT v AS got; END//\n" +
			"DELIMITER ;\n" +
			"CALL p" + suffix + "();\n" +
			"CALL q" + suffix + "();\n"
	}
	direct := e.cli(e.up.addr, script("_direct"))
	via := e.cli(addr, script("_via"))
	if strings.ReplaceAll(via, "_via", "") != strings.ReplaceAll(direct, "_direct", "") {
		t.Fatalf("through the listener the CLI printed\n%s\ndirectly\n%s", via, direct)
	}
	if !strings.Contains(via, "ERROR 1644 (45001)") || !strings.Contains(via, "got\n7") {
		t.Fatalf("the procedures did not run as written:\n%s", via)
	}
	if n := e.count("SELECT count(*) FROM information_schema.routines WHERE routine_schema = DATABASE() AND routine_name IN ('p_via', 'q_via')"); n != 2 {
		t.Fatalf("%d of the two procedures created through the listener", n)
	}
	e.direct("CREATE DATABASE IF NOT EXISTS " + e.db + "_keep")
	defer e.direct("DROP DATABASE IF EXISTS " + e.db + "_keep")
	out := e.cli(addr, "DELIMITER //\nCREATE PROCEDURE r() BEGIN SELECT 1; END; DROP DATABASE "+e.db+"_keep//\n")
	if !strings.Contains(out, "ERROR 1227") {
		t.Fatalf("DROP DATABASE after a body was not held:\n%s", out)
	}
	if n := e.count("SELECT count(*) FROM information_schema.schemata WHERE schema_name = '" + e.db + "_keep'"); n != 1 {
		t.Fatal("the database was dropped")
	}
}
