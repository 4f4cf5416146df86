package mysql

import (
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
)

// Every name the analyzer reads as a built-in function (its effects then
// lack RUNS_CODE) is one the local MariaDB runs as its own: `SELECT
// name()` does not answer that a stored function of that name does not
// exist (1305, 1630), which it answers for a stored function's name (the
// probe wipe_fn checks the test can tell).
func TestBuiltinsAreTheServers(t *testing.T) {
	addr, db := scratchMariaDB(t)
	pool := openMySQL(t, addr, db)
	stored := func(name string) bool {
		var v any
		err := pool.QueryRow("SELECT " + name + "()").Scan(&v)
		var me *mysql.MySQLError
		return errors.As(err, &me) && (me.Number == 1305 || me.Number == 1630)
	}
	if !stored("wipe_fn") {
		t.Fatal("SELECT wipe_fn() did not answer 1305: the probe cannot tell stored functions")
	}
	// The parser's names for CHAR(… USING …), INSERT(…), DEFAULT(col).
	internal := map[string]bool{"char_func": true, "insert_func": true, "default_func": true}
	for _, name := range analyzer.BuiltinNames() {
		if !internal[name] && stored(name) {
			t.Errorf("%s is in the analyzer's built-ins, but MariaDB reads %s() as a stored function", name, name)
		}
	}
}
