package mssql

import (
	"encoding/binary"
	"testing"

	"github.com/hoophq/sidecar/internal/tds"
)

// rpcCall is one RPC by procedure id with params (NVARCHAR text, INT values).
func rpcCall(id uint16, params ...tds.Param) []byte {
	r := &tds.RPC{Headers: tds.TxHeaders(0, 1), Calls: []tds.RPCCall{{ProcID: id, Params: params}}}
	return r.Encode()
}

var nvarchar = tds.TypeInfo{Type: tds.TypeNVarChar, Size: 8000, Collation: [5]byte{0x09, 0x04, 0xD0, 0x00, 0x34}}
var intN = tds.TypeInfo{Type: tds.TypeIntN, Size: 4}

func textParam(s string) tds.Param {
	return tds.Param{Type: withRaw(nvarchar), Value: tds.AppendUCS2(nil, s)}
}
func intParam(name string, v int32, out bool) tds.Param {
	p := tds.Param{Name: name, Type: withRaw(intN), Value: binary.LittleEndian.AppendUint32(nil, uint32(v))}
	if out {
		p.Status, p.Value = tds.ParamByRef, nil
	}
	return p
}

// withRaw fills TypeInfo.Raw as a decoded TYPE_INFO has it (Canonical hashes it).
func withRaw(ti tds.TypeInfo) tds.TypeInfo {
	ti.Raw = ti.Append(nil)
	return ti
}

// sp_prepexec returns a handle; sp_execute of that handle is decided on
// the prepared text and its values: the same statement as sp_prepexec and
// sp_executesql of that text and values (one approval), and an unknown
// handle is UNKNOWN.
func TestPreparedHandleIsDecidedOnItsText(t *testing.T) {
	f := newFixture(t)
	c := dialRaw(t, f.addr)
	l := agentLogin()
	l.AppName = returnApp
	c.login(l)
	const q = "DELETE FROM t WHERE id = @p1"
	held := func(data []byte) string {
		t.Helper()
		c.send(tds.PacketRPC, data)
		e := firstError(t, tokens(t, c.read().Data))
		m := approvalID.FindStringSubmatch(e.Message)
		if e.Number != 229 || m == nil {
			t.Fatalf("ERROR %d %q, want a held statement", e.Number, e.Message)
		}
		return m[1]
	}
	// sp_prepexec(@handle OUT, @params, @stmt, @p1)
	first := held(rpcCall(tds.ProcPrepExec, intParam("@handle", 0, true), textParam("@p1 int"), textParam(q), intParam("@p1", 5, false)))
	f.approve(first)
	c.send(tds.PacketRPC, rpcCall(tds.ProcPrepExec, intParam("@handle", 0, true), textParam("@p1 int"), textParam(q), intParam("@p1", 5, false)))
	toks := tokens(t, c.read().Data)
	for _, tok := range toks {
		if tok.Type == tds.TokenError {
			t.Fatalf("approved sp_prepexec: %x", tok.Raw)
		}
	}
	// sp_execute(7, 5): the same statement, whose approval was spent: a new one.
	second := held(rpcCall(tds.ProcExecute, intParam("", 7, false), intParam("@p1", 5, false)))
	if second == first {
		t.Fatal("sp_execute reused the spent approval")
	}
	// sp_executesql of the same text and value is that same statement.
	if third := held(rpcCall(tds.ProcExecuteSQL, textParam(q), textParam("@p1 int"), intParam("@p1", 5, false))); third != second {
		t.Fatalf("sp_executesql of the same text and values filed %s, want %s", third, second)
	}
	// A handle never prepared on this connection: UNKNOWN, held by the rule on UNKNOWN.
	held(rpcCall(tds.ProcExecute, intParam("", 99, false), intParam("@p1", 5, false)))
	if n := f.ranCount("sp_execute"); n != 0 {
		t.Fatalf("the upstream ran sp_execute %d times", n)
	}
}

// A procedure is the same by name (any case, with a database prefix) and
// by its well-known id: sp_executesql sent either way is one statement.
func TestProcedureByNameOrID(t *testing.T) {
	f := newFixture(t)
	c := dialRaw(t, f.addr)
	l := agentLogin()
	l.AppName = returnApp
	c.login(l)
	const q = "DELETE FROM t WHERE id = @p1"
	ids := map[string]bool{}
	for _, call := range []tds.RPCCall{
		{ProcID: tds.ProcExecuteSQL},
		{ProcName: "sp_executesql"},
		{ProcName: "master..SP_EXECUTESQL"},
	} {
		call.Params = []tds.Param{textParam(q), textParam("@p1 int"), intParam("@p1", 5, false)}
		r := &tds.RPC{Headers: tds.TxHeaders(0, 1), Calls: []tds.RPCCall{call}}
		c.send(tds.PacketRPC, r.Encode())
		e := firstError(t, tokens(t, c.read().Data))
		m := approvalID.FindStringSubmatch(e.Message)
		if e.Number != 229 || m == nil {
			t.Fatalf("%+v: ERROR %d %q", call.ProcName, e.Number, e.Message)
		}
		ids[m[1]] = true
	}
	if len(ids) != 1 {
		t.Fatalf("approvals %v, want one", ids)
	}
}
