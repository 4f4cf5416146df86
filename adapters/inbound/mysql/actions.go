package mysql

import (
	"fmt"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
	"github.com/hoophq/sidecar/app"
)

// Actions returns every action a mysql listener reports: the analyzer's
// statement kinds (analyzer.Actions), upper case.
func Actions() []string { return analyzer.Actions() }

// CheckAction implements app.ActionChecker: a rule's action on a mysql
// listener must be one of Actions (any case), the statement kinds of
// docs/mysql-listener.md. Actions are names, not globs.
func (p *Protocol) CheckAction(action string) error {
	if analyzer.IsAction(action) {
		return nil
	}
	return fmt.Errorf("%q is not an action of mysql listeners: the statement kinds are listed in "+
		"docs/mysql-listener.md, \"Analyzer\" (e.g. DELETE, DROP, DROP_TABLE, UPDATE, LOAD_DATA, UNKNOWN)", action)
}

// CheckUpstream implements app.UpstreamChecker: a mysql listener's
// upstream is the one host:port it dials (not a URL or a connection
// string: user, password and database come from each client's login).
func (p *Protocol) CheckUpstream(upstream string) error {
	return app.CheckHostPort("mysql", "db.internal:3306", upstream)
}
