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
	// call answers whether the server looks `SELECT <call><args>` up as a
	// stored function, for some argument list.
	call := func(call string, args ...string) bool {
		for _, a := range args {
			var v any
			err := pool.QueryRow("SELECT " + call + a).Scan(&v)
			var me *mysql.MySQLError
			if errors.As(err, &me) && (me.Number == 1305 || me.Number == 1630) {
				return true
			}
		}
		return false
	}
	stored := func(name string) bool { return call(name, "()") }
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
	// With a gap before "(" and quoted, the names the analyzer lists as
	// shadowed (RUNS_CODE) are exactly those the server looks up as stored.
	args := []string{"(1)", "(1,1)", "(1,1,1)", "()"}
	gap, quoted := map[string]bool{}, map[string]bool{}
	for _, n := range analyzer.GapShadowed() {
		gap[n] = true
	}
	for _, n := range analyzer.QuotedShadowed() {
		quoted[n] = true
	}
	for _, name := range analyzer.BuiltinNames() {
		if internal[name] {
			continue
		}
		if got := call(name+" ", args...); got != gap[name] {
			t.Errorf("SELECT %s (…): the server looks up a stored function: %v; analyzer.GapShadowed lists it: %v", name, got, gap[name])
		}
		if got := call("`"+name+"`", args...); got != quoted[name] {
			t.Errorf("SELECT `%s`(…): the server looks up a stored function: %v; analyzer.QuotedShadowed lists it: %v", name, got, quoted[name])
		}
	}
}
