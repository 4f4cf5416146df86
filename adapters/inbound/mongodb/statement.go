package mongodb

import (
	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	"github.com/hoophq/sidecar/app"
)

// statement is what the gate sees of one command: the approver's rendering
// (relaxed Extended JSON, rendered no further than the gate shows:
// app.MaxShownStatement, where app.Shown cuts and marks it) and the
// analysis (actions, db.collection targets). check (wait.go) adds the
// identity, the client and return mode, and for a command a rule holds its
// canonical bytes (cmd.CanonicalBytes, the command package's Canonicalize:
// the command document as sent, document sequences folded in, without what
// drivers vary on every send such as lsid, $clusterTime, txnNumber,
// $readPreference and driver metadata).
func statement(cmd *command.Command) app.Statement {
	return app.Statement{Render: func() string { return cmd.Display(app.MaxShownStatement) }, Analysis: cmd.Analysis}
}
