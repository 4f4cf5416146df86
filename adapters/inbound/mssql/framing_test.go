package mssql

import (
	"testing"

	"github.com/hoophq/sidecar/internal/tds"
)

// RPCs whose bytes SQL Server may frame otherwise than the listener reads
// them (tds.UnreadableError) are refused, nothing of them runs and the
// connection stays usable; a call after the NoExec separator 0xFE is
// decided as every other call.
func TestRPCTheServerMayFrameOtherwise(t *testing.T) {
	f := newFixture(t)
	c := returnClient(t, f)
	encrypted := textParam("SELECT 2")
	encrypted.Status = 0x08 // Always Encrypted: cipher metadata follows the value
	for _, m := range []*tds.RPC{
		{Headers: tds.TxHeaders(0, 1), Calls: []tds.RPCCall{{ProcID: tds.ProcExecuteSQL, Params: []tds.Param{encrypted}}}},
		{Headers: tds.TxHeaders(0, 1), Separator: 0x80, Calls: []tds.RPCCall{
			{ProcID: tds.ProcExecuteSQL, Params: []tds.Param{textParam("SELECT 2")}},
			{ProcID: tds.ProcExecuteSQL, Params: []tds.Param{textParam("SELECT 2")}}}},
	} {
		c.send(tds.PacketRPC, m.Encode())
		if e := firstError(t, tokens(t, c.read().Data)); e.Number != errUnsupportedType.Number || e.State != errUnsupportedType.State {
			t.Fatalf("ERROR %d state %d %q, want the listener's refusal", e.Number, e.State, e.Message)
		}
	}
	if n := f.ranCount("SELECT 2"); n != 0 {
		t.Fatalf("a refused RPC ran %d times", n)
	}
	c.send(tds.PacketRPC, (&tds.RPC{Headers: tds.TxHeaders(0, 1), Separator: 0xFE, Calls: []tds.RPCCall{
		{ProcID: tds.ProcExecuteSQL, Params: []tds.Param{textParam("SELECT 1")}},
		{ProcID: tds.ProcExecuteSQL, Params: []tds.Param{textParam("DELETE FROM t")}}}}).Encode())
	if e := firstError(t, tokens(t, c.read().Data)); e.Number != 229 {
		t.Fatalf("ERROR %d %q, want the DELETE after 0xFE held", e.Number, e.Message)
	}
}
