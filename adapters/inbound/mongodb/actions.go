package mongodb

import (
	"fmt"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	"github.com/hoophq/sidecar/app"
)

// Actions returns every action a mongodb listener reports (command.Actions):
// the vocabulary of its rules, upper case.
func Actions() []string { return command.Actions() }

// CheckAction implements app.ActionChecker: a rule's action on a mongodb
// listener must be one of Actions (any case), listed in
// docs/mongodb-listener.md, "Actions". Actions are names, not globs.
func (p *Protocol) CheckAction(action string) error {
	if command.IsAction(action) {
		return nil
	}
	return fmt.Errorf("%q is not an action of mongodb listeners: the actions are listed in "+
		"docs/mongodb-listener.md, \"Actions\" (e.g. FIND, INSERT, DELETE, DROP, AGGREGATE_WRITE, SERVER_JS)", action)
}

// CheckUpstream implements app.UpstreamChecker: a mongodb listener's
// upstream is one host:port (a mongod or mongos; not a mongodb:// URL, not
// a replica set seed list).
func (p *Protocol) CheckUpstream(upstream string) error {
	return app.CheckHostPort("mongodb", "mongo:27017", upstream)
}
