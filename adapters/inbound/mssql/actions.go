package mssql

import (
	"fmt"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mssql/analyzer"
	"github.com/hoophq/sidecar/app"
)

// Actions returns every action an mssql listener reports: the T-SQL
// analyzer's statement kinds (analyzer.Actions), upper case.
func Actions() []string { return analyzer.Actions() }

// CheckAction implements app.ActionChecker: a rule's action on an mssql
// listener must be one of Actions (any case), the statement kinds of
// docs/mssql-listener.md. Actions are names, not globs.
func (p *Protocol) CheckAction(action string) error {
	if analyzer.IsAction(action) {
		return nil
	}
	hint := ""
	if m := nearAction(action); m != "" {
		hint = "; did you mean " + m + "?"
	}
	return fmt.Errorf("%q is not an action of mssql listeners%s: the statement kinds are listed in "+
		"docs/mssql-listener.md, \"Analyzer\" (e.g. DELETE, DROP, DROP_TABLE, UPDATE, EXEC, UNKNOWN)", action, hint)
}

// nearAction returns the action a near miss means ("" if none): T-SQL's
// long EXECUTE is EXEC, and hyphens stand for underscores (drop-table).
func nearAction(action string) string {
	a := strings.ToUpper(strings.ReplaceAll(action, "-", "_"))
	if a == "EXECUTE" {
		a = "EXEC"
	}
	if a != strings.ToUpper(action) && analyzer.IsAction(a) {
		return a
	}
	return ""
}

// CheckUpstream implements app.UpstreamChecker: an mssql listener's
// upstream is the one host:port it dials (not a URL or connection string;
// a named instance, host\instance, is reached by the port SQL Server
// Browser would give, so the listener needs that port).
func (p *Protocol) CheckUpstream(upstream string) error {
	if app.IsHostPort(upstream) {
		return nil
	}
	hint := ""
	switch {
	case strings.Contains(upstream, `\`):
		hint = ": a named instance (host\\instance) is reached by its TCP port; give host:port"
	case strings.Contains(upstream, ","):
		hint = ": write SQL Server's host,port as host:port"
	}
	return fmt.Errorf("the upstream of an mssql listener is host:port (e.g. sqlserver.internal:1433), not %q%s", upstream, hint)
}
