package mssql

import (
	"testing"

	"github.com/hoophq/sidecar/internal/tds"
)

// SQL Server binds the leading parameters of sp_executesql, sp_prepexec,
// sp_execute… by position, whatever their names (tds.RPCCall.Statement):
// the listener decides what sits at each position.

// ranRPC sends an RPC and fails unless its answer carries no error.
func ranRPC(t *testing.T, c *rawClient, calls ...tds.RPCCall) {
	t.Helper()
	c.send(tds.PacketRPC, (&tds.RPC{Headers: tds.TxHeaders(0, 1), Calls: calls}).Encode())
	for _, tok := range tokens(t, c.read().Data) {
		if tok.Type == tds.TokenError {
			t.Fatalf("ERROR %q", firstError(t, []tds.Token{tok}).Message)
		}
	}
}

// The first parameter is the statement even when it is named @params.
func TestLeadingParametersBindByPosition(t *testing.T) {
	f := newFixture(t)
	c := returnClient(t, f)
	heldRPC(t, c, tds.RPCCall{ProcID: tds.ProcExecuteSQL, Params: []tds.Param{
		named("@params", textParam("DELETE FROM t")), named("@stmt", textParam(""))}})
	heldRPC(t, c, tds.RPCCall{ProcName: "sp_prepexec", Params: []tds.Param{
		intParam("@stmt", 0, true), named("@handle", textParam("")), named("@params", textParam("DELETE FROM t"))}})
	if n := f.ranCount("DELETE FROM t"); n != 0 {
		t.Fatalf("the DELETE ran %d times", n)
	}
}

// A value of the statement's own may carry a leading parameter's name, as
// tedious sends it for request.input('params', …) or input('handle', …):
// it is a value, and the statement is decided on its text.
func TestValueNamedLikeALeadingParameter(t *testing.T) {
	f := newFixture(t)
	c := returnClient(t, f)
	const q = "SELECT * FROM t WHERE id = @params"
	ranRPC(t, c, tds.RPCCall{ProcID: tds.ProcExecuteSQL, Params: []tds.Param{
		named("@statement", textParam(q)), named("@params", textParam("@params int")), intParam("@params", 5, false)}})
	ranRPC(t, c, tds.RPCCall{ProcID: tds.ProcPrepExec, Params: []tds.Param{
		intParam("@handle", 0, true), named("@params", textParam("@handle int")),
		named("@stmt", textParam("SELECT * FROM t WHERE id = @handle")), intParam("@handle", 5, false)}})
	ranRPC(t, c, tds.RPCCall{ProcID: tds.ProcExecute, Params: []tds.Param{intParam("", 7, false), intParam("@handle", 9, false)}})
	if n := f.ranCount(q); n != 1 {
		t.Fatalf("%q ran %d times, want 1", q, n)
	}
}
