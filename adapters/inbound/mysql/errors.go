package mysql

import (
	"encoding/binary"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/domain"
)

// sqlError is one ERR packet (MySQL Client/Server Protocol, ERR_Packet):
// an error number, a five-character SQLSTATE and a message.
type sqlError struct {
	Code  uint16
	State string
	Msg   string
}

// The ERR numbers and SQLSTATEs the listener answers with
// (docs/mysql-listener.md, "Denials"). Numbers are MySQL's own, chosen so
// that a driver that knows them reacts as it would to the server.
var (
	// errHeld: a statement held for a person (return mode, or a wait that
	// ended without approval): ER_SPECIFIC_ACCESS_DENIED_ERROR.
	errHeld = sqlError{Code: gm.ER_SPECIFIC_ACCESS_DENIED_ERROR, State: "42000"}
	// errPolicy: a policy rule denies the statement: ER_TABLEACCESS_DENIED_ERROR.
	errPolicy = sqlError{Code: gm.ER_TABLEACCESS_DENIED_ERROR, State: "42000"}
	// errUnavailable: it needs approval and the Control Plane cannot be
	// reached (fail closed): ER_OPTION_PREVENTS_STATEMENT.
	errUnavailable = sqlError{Code: gm.ER_OPTION_PREVENTS_STATEMENT, State: "HY000"}
	// errTxAborted: a statement after a denial inside a transaction, before
	// ROLLBACK: ER_LOCK_DEADLOCK, the error after which MySQL has rolled a
	// transaction back.
	errTxAborted = sqlError{Code: gm.ER_LOCK_DEADLOCK, State: "40001"}
	// errInterrupted: a wait ended by KILL QUERY: ER_QUERY_INTERRUPTED.
	errInterrupted = sqlError{Code: gm.ER_QUERY_INTERRUPTED, State: "70100"}
	// errShutdown: the listener stopped: ER_SERVER_SHUTDOWN.
	errShutdown = sqlError{Code: gm.ER_SERVER_SHUTDOWN, State: "08S01"}
	// errMalformed: a packet that breaks the protocol; the connection ends.
	errMalformed = sqlError{Code: gm.ER_MALFORMED_PACKET, State: "HY000"}
	// errUnknownCommand: a command the listener does not relay.
	errUnknownCommand = sqlError{Code: gm.ER_UNKNOWN_COM_ERROR, State: "08S01"}
	// errUncheckable: a statement the listener cannot check.
	errUncheckable = sqlError{Code: gm.ER_NOT_SUPPORTED_YET, State: "42000"}
	// errNoMemory: the held-payload budget refused a packet.
	errNoMemory = sqlError{Code: gm.ER_OUT_OF_RESOURCES, State: "HY000"}
)

// with returns e carrying msg.
func (e sqlError) with(msg string) sqlError { e.Msg = msg; return e }

// encode returns the ERR_Packet payload (CLIENT_PROTOCOL_41 form).
func (e sqlError) encode() []byte {
	b := make([]byte, 0, 9+len(e.Msg))
	b = append(b, 0xff)
	b = binary.LittleEndian.AppendUint16(b, e.Code)
	b = append(b, '#')
	b = append(b, (e.State + "HY000")[:5]...)
	return append(b, e.Msg...)
}

// denialErrors is the error of each domain.DenialKind (denial_test.go
// checks that every kind has one).
var denialErrors = map[domain.DenialKind]sqlError{
	domain.DeniedForApproval: errHeld,
	domain.DeniedByPolicy:    errPolicy,
	domain.DeniedUnavailable: errUnavailable,
	domain.DeniedShutdown:    errShutdown,
	domain.DeniedUncheckable: errUncheckable,
	domain.DeniedTooLarge:    errPolicy,
}

// denialError renders the gate's denial as an ERR: the message is the
// denial's text exactly (the spec's database text, or its MCP variant).
func denialError(d *domain.Denial) sqlError { return denialErrors[d.Kind].with(d.Message) }
