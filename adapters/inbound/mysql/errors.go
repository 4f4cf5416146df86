package mysql

import (
	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/domain"
)

// The ERR numbers and SQLSTATEs the listener answers with
// (docs/mysql-listener.md, "Denials"). Numbers are MySQL's own, chosen so
// that a driver that knows them reacts as it would to the server.
var (
	// errHeld: a statement held for a person (return mode, or a wait that
	// ended without approval): ER_SPECIFIC_ACCESS_DENIED_ERROR.
	errHeld = wire.ERR{Code: gm.ER_SPECIFIC_ACCESS_DENIED_ERROR, State: "42000"}
	// errPolicy: a policy rule denies the statement: ER_TABLEACCESS_DENIED_ERROR.
	errPolicy = wire.ERR{Code: gm.ER_TABLEACCESS_DENIED_ERROR, State: "42000"}
	// errUnavailable: it needs approval and the Control Plane cannot be
	// reached (fail closed): ER_OPTION_PREVENTS_STATEMENT.
	errUnavailable = wire.ERR{Code: gm.ER_OPTION_PREVENTS_STATEMENT, State: "HY000"}
	// errTxAborted: a statement after a denial inside a transaction, before
	// ROLLBACK: ER_LOCK_DEADLOCK, the error after which MySQL has rolled a
	// transaction back.
	errTxAborted = wire.ERR{Code: gm.ER_LOCK_DEADLOCK, State: "40001"}
	// errInterrupted: a wait ended by KILL QUERY: ER_QUERY_INTERRUPTED.
	errInterrupted = wire.ERR{Code: gm.ER_QUERY_INTERRUPTED, State: "70100"}
	// errShutdown: the listener stopped: ER_SERVER_SHUTDOWN.
	errShutdown = wire.ERR{Code: gm.ER_SERVER_SHUTDOWN, State: "08S01"}
	// errMalformed: a packet that breaks the protocol; the connection ends.
	errMalformed = wire.ERR{Code: gm.ER_MALFORMED_PACKET, State: "HY000"}
	// errUnknownCommand: a command the listener does not relay.
	errUnknownCommand = wire.ERR{Code: gm.ER_UNKNOWN_COM_ERROR, State: "08S01"}
	// errUncheckable: a statement the listener cannot check.
	errUncheckable = wire.ERR{Code: gm.ER_NOT_SUPPORTED_YET, State: "42000"}
	// errUpstreamGone: the upstream ended the connection before an
	// approved statement was sent; the connection ends:
	// ER_NEW_ABORTING_CONNECTION.
	errUpstreamGone = wire.ERR{Code: gm.ER_NEW_ABORTING_CONNECTION, State: "08S01"}
	// errNoMemory: the held-payload budget refused a packet.
	errNoMemory = wire.ERR{Code: gm.ER_OUT_OF_RESOURCES, State: "HY000"}
)

// denialErrors is the error of each domain.DenialKind (denial_test.go
// checks that every kind has one).
var denialErrors = map[domain.DenialKind]wire.ERR{
	domain.DeniedForApproval: errHeld,
	domain.DeniedByPolicy:    errPolicy,
	domain.DeniedUnavailable: errUnavailable,
	domain.DeniedShutdown:    errShutdown,
	domain.DeniedUncheckable: errUncheckable,
	domain.DeniedTooLarge:    errPolicy,
}

// denialError renders the gate's denial as an ERR: the message is the
// denial's text exactly (the spec's database text, or its MCP variant).
func denialError(d *domain.Denial) wire.ERR { return denialErrors[d.Kind].With(d.Message) }
