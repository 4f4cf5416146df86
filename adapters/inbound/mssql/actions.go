package mssql

import (
	"fmt"

	"github.com/hoophq/sidecar/adapters/inbound/mssql/analyzer"
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
	return fmt.Errorf("%q is not an action of mssql listeners: the statement kinds are listed in "+
		"docs/mssql-listener.md, \"Analyzer\" (e.g. DELETE, DROP, DROP_TABLE, UPDATE, EXEC, UNKNOWN)", action)
}
