package mssql

import (
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/tds"
)

// sqlError is one ERROR token the listener writes (MS-TDS 2.2.7.10): a
// number, a state, a class (severity) and the message. Numbers are SQL
// Server's own where one means the same thing, so a driver that knows them
// reacts as it would to the server; the state tells the Sidecar's cases
// apart (docs/mssql-listener.md, "Errors").
type sqlError struct {
	Number int32
	State  byte
	Class  byte
	Msg    string
}

// The errors the listener answers with.
var (
	// errHeld: a statement held for a person (return mode, or a wait that
	// ended without approval): 229, the permission-denied error, class 14.
	errHeld = sqlError{Number: 229, State: 120, Class: 14}
	// errPolicy: a policy rule denies the statement: 229, state 121.
	errPolicy = sqlError{Number: 229, State: 121, Class: 14}
	// errUncheckable: a statement the listener cannot check (fail closed):
	// 229, state 124.
	errUncheckable = sqlError{Number: 229, State: 124, Class: 14}
	// errUnavailable: it needs approval and the Control Plane cannot be
	// reached (nothing was filed or run): 50000, state 122, class 16.
	errUnavailable = sqlError{Number: 50000, State: 122, Class: 16}
	// errTxDoomed: a request inside a transaction in which a statement was
	// denied, before the client rolls it back: 3930, SQL Server's own error
	// for a transaction that cannot be committed, class 16.
	errTxDoomed = sqlError{Number: 3930, State: 1, Class: 16}
	// errShutdown: the listener stopped: 6005 "SHUTDOWN is in progress",
	// class 14; the connection closes.
	errShutdown = sqlError{Number: 6005, State: 1, Class: 14}
	// errProtocol: a message that breaks the protocol: 4002, SQL Server's
	// "The incoming tabular data stream (TDS) protocol stream is incorrect",
	// class 20 (the connection closes).
	errProtocol = sqlError{Number: 4002, State: 1, Class: 20}
	// errNoMemory: the held-payload budget refused a request: 701, "There is
	// insufficient system memory", class 17; the connection stays.
	errNoMemory = sqlError{Number: 701, State: 1, Class: 17}
	// errLogin: a login the listener refuses (Windows, Kerberos or Entra
	// authentication; a client older than TDS 7.2): 18456 "Login failed",
	// class 14.
	errLogin = sqlError{Number: 18456, State: 120, Class: 14}
	// errConnect: the listener cannot serve the connection (the upstream is
	// unreachable, encryption it cannot provide): 50000, state 125, class 20.
	errConnect = sqlError{Number: 50000, State: 125, Class: 20}
	// errUnsupportedType: an RPC parameter of a type the codec does not
	// read (TVP, CLR UDT), or an RPC the server may frame otherwise
	// (tds.UnreadableError): class 16; nothing is run.
	errUnsupportedType = sqlError{Number: 50000, State: 126, Class: 16}
	// errUnreadableAnswer: the upstream's answer breaks MS-TDS (a byte that
	// starts no token, a token that breaks its layout or ends with the
	// message): class 20, the connection closes rather than relay a stream
	// the listener can no longer follow (relay.go).
	errUnreadableAnswer = sqlError{Number: 50000, State: 127, Class: 20}
)

// serverName is the ServerName of the listener's own ERROR tokens.
const serverName = "hoop-sidecar"

// with returns e carrying msg.
func (e sqlError) with(msg string) sqlError { e.Msg = msg; return e }

// token appends e as an ERROR token to dst.
func (e sqlError) token(dst []byte) []byte {
	info := &tds.ErrorInfo{Number: e.Number, State: e.State, Class: e.Class, Message: e.Msg, ServerName: serverName, Line: 1}
	return info.Append(dst, tds.TokenError)
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

// denialError renders the gate's denial as an ERROR: the message is the
// denial's text exactly (the spec's database text, or its MCP variant).
func denialError(d *domain.Denial) sqlError { return denialErrors[d.Kind].with(d.Message) }

// errorReply is a whole answer to one request: the ERROR token, then the
// final DONE (DONEPROC for an RPC) with DONE_ERROR, and DONE_INXACT when a
// transaction is open.
func errorReply(e sqlError, doneTok byte, inTx bool) []byte {
	st := tds.DoneError
	if inTx {
		st |= tds.DoneInXact
	}
	return (&tds.Done{Token: doneTok, Status: st}).Append(e.token(nil))
}

// attnReply is the answer to an Attention the listener handles itself:
// DONE with DONE_ATTN (MS-TDS 2.2.1.7).
func attnReply() []byte { return (&tds.Done{Status: tds.DoneAttn}).Append(nil) }
