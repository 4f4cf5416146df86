package postgres

import (
	"fmt"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// fastpathEffects are a fastpath FunctionCall's effects: a function named
// by its oid only, so any function (lo_import, a user's): RUNS_CODE.
var fastpathEffects = []string{domain.EffectRunsCode}

// actionFunctionCall is the action of a fastpath FunctionCall message
// (query.go), which never reaches the analyzer.
const actionFunctionCall = "FUNCTION_CALL"

// Actions returns every action a postgres listener reports: the analyzer's
// (analyzer.Actions) and FUNCTION_CALL, upper case.
func Actions() []string { return append(analyzer.Actions(), actionFunctionCall) }

// CheckAction implements app.ActionChecker: a rule's action on a postgres
// listener must be one of Actions (any case), the statement kinds of
// docs/postgres-listener.md. Actions are names, not globs.
func (p *Protocol) CheckAction(action string) error {
	if analyzer.IsAction(action) || strings.EqualFold(action, actionFunctionCall) {
		return nil
	}
	return fmt.Errorf("%q is not an action of postgres listeners: the statement kinds are listed in "+
		"docs/postgres-listener.md, \"The analyzer\" (e.g. DELETE, DROP, DROP_TABLE, UPDATE, UNKNOWN)", action)
}

// CheckUpstream implements app.UpstreamChecker: a postgres listener's
// upstream is the one host:port it dials (not a URL or a connection
// string: user, password and database come from each client's login).
func (p *Protocol) CheckUpstream(upstream string) error {
	return app.CheckHostPort("postgres", "db.internal:5432", upstream)
}
