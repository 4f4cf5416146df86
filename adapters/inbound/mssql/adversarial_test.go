package mssql

import (
	"context"
	"database/sql"
	"encoding/binary"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
	"github.com/hoophq/sidecar/ports"

	"github.com/hoophq/sidecar/internal/tds"
)

// Requests an agent could craft to have the listener read one statement
// while SQL Server runs another.

// heldRPC sends an RPC and returns the approval id of its denial (229).
func heldRPC(t *testing.T, c *rawClient, calls ...tds.RPCCall) string {
	t.Helper()
	c.send(tds.PacketRPC, (&tds.RPC{Headers: tds.TxHeaders(0, 1), Calls: calls}).Encode())
	toks := tokens(t, c.read().Data)
	e := firstError(t, toks)
	m := approvalID.FindStringSubmatch(e.Message)
	if e.Number != 229 || m == nil {
		t.Fatalf("ERROR %d %q, want a held statement", e.Number, e.Message)
	}
	return m[1]
}

func named(name string, p tds.Param) tds.Param { p.Name = name; return p }

func returnClient(t *testing.T, f *fixture) *rawClient {
	c := dialRaw(t, f.addr)
	l := agentLogin()
	l.AppName = returnApp
	c.login(l)
	return c
}

// Named values bind by name: @a = 1, @b = 2 and @b = 1, @a = 2 are two
// statements, so an approval of one is not spent by the other.
func TestNamedValuesAreBoundByName(t *testing.T) {
	f := newFixture(t)
	c := returnClient(t, f)
	call := func(first, second tds.Param) tds.RPCCall {
		return tds.RPCCall{ProcID: tds.ProcExecuteSQL, Params: []tds.Param{
			textParam("DELETE FROM t WHERE a = @a AND b = @b"), textParam("@a int, @b int"), first, second}}
	}
	one := heldRPC(t, c, call(intParam("@a", 1, false), intParam("@b", 2, false)))
	if two := heldRPC(t, c, call(intParam("@b", 1, false), intParam("@a", 2, false))); two == one {
		t.Fatal("@b = 1, @a = 2 reused the approval of @a = 1, @b = 2")
	}
}

// sp_cursoropen's bound values (after @paramdef) change what runs: each
// set of values is its own statement.
func TestCursorOpenValuesArePartOfTheStatement(t *testing.T) {
	f := newFixture(t)
	c := returnClient(t, f)
	call := func(v int32) tds.RPCCall {
		return tds.RPCCall{ProcID: tds.ProcCursorOpen, Params: []tds.Param{
			intParam("", 0, true), textParam("DELETE FROM t WHERE id = @p1"), intParam("", 8, false), intParam("", 1, false),
			intParam("", 0, false), textParam("@p1 int"), intParam("@p1", v, false)}}
	}
	if heldRPC(t, c, call(1)) == heldRPC(t, c, call(2)) {
		t.Fatal("sp_cursoropen with @p1 = 2 reused the approval of @p1 = 1")
	}
}

// ROLLBACK TRAN savepoint in a doomed transaction leaves it open and
// doomed: the COMMIT after it must not commit what ran before the
// savepoint.
func TestRollbackToSavepointKeepsTheTransactionDoomed(t *testing.T) {
	f := newFixture(t)
	c := f.conn(returnApp)
	ctx := context.Background()
	for _, q := range []string{"BEGIN TRAN", "INSERT INTO t VALUES (1)", "SAVE TRAN sp1"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	_, err := c.ExecContext(ctx, "DELETE FROM t")
	heldID(t, err)
	if _, err := c.ExecContext(ctx, "ROLLBACK TRAN sp1"); err != nil {
		t.Fatalf("ROLLBACK TRAN sp1: %v", err)
	}
	_, err = c.ExecContext(ctx, "INSERT INTO t VALUES (2)")
	sqlErr(t, err, 3930)
	_, err = c.ExecContext(ctx, "COMMIT")
	sqlErr(t, err, 3930)
	if f.ranCount("COMMIT") != 0 || f.ranCount("INSERT INTO t VALUES (2)") != 0 {
		t.Fatalf("the doomed transaction went on after ROLLBACK TRAN sp1: upstream ran %q", f.ran)
	}
}

// The COMMIT of a doomed transaction is answered 3930 once the listener
// rolled the transaction back upstream. When that rollback fails (the
// upstream answers it with an error and no rollback ENVCHANGE, as the
// project's stand-in does for IF … ROLLBACK), the transaction is still open
// upstream: it must stay doomed, so that a second COMMIT does not commit
// the INSERT that ran before the denial.
func TestDoomedCommitWhoseRollbackFailsStaysDoomed(t *testing.T) {
	f := newFixture(t, withBatchAnswer(func(b *tds.SQLBatch) []byte {
		if strings.HasPrefix(strings.TrimSpace(b.Text), "IF @@TRANCOUNT > 0 ROLLBACK") {
			return (&tds.Done{Status: tds.DoneError | tds.DoneInXact}).Append(tdstest.Error(102, 15, "Incorrect syntax near 'IF'."))
		}
		return nil
	}))
	c := f.conn(returnApp)
	ctx := context.Background()
	for _, q := range []string{"BEGIN TRAN", "INSERT INTO t VALUES (1)"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	_, err := c.ExecContext(ctx, "DELETE FROM t")
	heldID(t, err)
	_, err = c.ExecContext(ctx, "COMMIT")
	if e := sqlErr(t, err, 3930); strings.Contains(e.Message, "was rolled back") {
		t.Errorf("the COMMIT's answer says the transaction was rolled back, but the upstream refused the rollback: %q", e.Message)
	}
	_, err = c.ExecContext(ctx, "COMMIT")
	sqlErr(t, err, 3930)
	if n := f.ranCount("COMMIT"); n != 0 {
		t.Fatalf("a COMMIT reached the upstream of a transaction still open after a denial: upstream ran %q", f.ran)
	}
}

// prepareSelect prepares a harmless statement with sp_prepexec; the
// fixture's upstream returns handle 7.
func prepareSelect(t *testing.T, c *rawClient) {
	t.Helper()
	c.send(tds.PacketRPC, rpcCall(tds.ProcPrepExec, intParam("@handle", 0, true), textParam("@p1 int"),
		textParam("SELECT * FROM t WHERE id = @p1"), intParam("@p1", 5, false)))
	for _, tok := range tokens(t, c.read().Data) {
		if tok.Type == tds.TokenError {
			t.Fatalf("sp_prepexec of a SELECT: %x", tok.Raw)
		}
	}
}

// A message that unprepares handle 7, prepares a DELETE (the server may
// hand it the freed handle 7) and executes 7: the listener no longer knows
// what 7 is, so the sp_execute is UNKNOWN, not the old SELECT.
func TestUnprepareThenExecuteInOneMessage(t *testing.T) {
	f := newFixture(t)
	c := returnClient(t, f)
	prepareSelect(t, c)
	heldRPC(t, c,
		tds.RPCCall{ProcID: tds.ProcUnprepare, Params: []tds.Param{intParam("", 7, false)}},
		tds.RPCCall{ProcID: tds.ProcPrepare, Params: []tds.Param{intParam("", 0, true), textParam(""), textParam("DELETE FROM t")}},
		tds.RPCCall{ProcID: tds.ProcExecute, Params: []tds.Param{intParam("", 7, false)}})
	// Unprepared even when the answer failed: 7 stays unknown.
	heldRPC(t, c, tds.RPCCall{ProcID: tds.ProcExecute, Params: []tds.Param{intParam("", 7, false)}})
}

// The handle is the RETURNVALUE of sp_prepexec's first parameter, sent as
// @handle OUTPUT; another OUTPUT value (whatever the statement put in it)
// is not a handle, and an sp_execute of that number is not the statement.
func TestOutputValueIsNotTakenForAHandle(t *testing.T) {
	f := newFixture(t, func(_ *app.ListenerSettings, _ *app.CoreOptions, up *tdstest.Server) {
		onRPC := up.OnRPC
		up.OnRPC = func(r *tds.RPC) []byte {
			if c := r.Calls[0]; c.Proc() == tds.ProcPrepExec && c.Params[0].Status&tds.ParamByRef == 0 {
				// SQL Server's answer: only @x OUTPUT (ordinal 3) comes back, = 7.
				rv := []byte{tds.TokenReturnValue, 3, 0, 2}
				rv = append(rv, tds.AppendUCS2(nil, "@x")...)
				rv = append(rv, 1, 0, 0, 0, 0, 0, 0, tds.TypeIntN, 4, 4, 7, 0, 0, 0)
				return append(rv, tdstest.ProcEnd()...)
			}
			return onRPC(r)
		}
	})
	c := returnClient(t, f)
	c.send(tds.PacketRPC, rpcCall(tds.ProcPrepExec, intParam("@handle", 0, false), textParam("@x int OUTPUT"),
		textParam("SELECT @x = 7"), intParam("@x", 0, true)))
	for _, tok := range tokens(t, c.read().Data) {
		if tok.Type == tds.TokenError {
			t.Fatalf("sp_prepexec of a SELECT: %x", tok.Raw)
		}
	}
	heldRPC(t, c, tds.RPCCall{ProcID: tds.ProcExecute, Params: []tds.Param{intParam("", 7, false)}})
}

// One approval, resent at once from two connections of its principal,
// runs once; another principal's identical statement does not spend it.
func TestApprovalRunsOnceAndOnlyForItsPrincipal(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const q = "DELETE FROM t WHERE id = 1"
	a1, a2, other := f.connAs("agent", returnApp), f.connAs("agent", returnApp), f.connAs("other", returnApp)
	_, err := a1.ExecContext(ctx, q)
	id := heldID(t, err)
	f.approve(id)
	_, err = other.ExecContext(ctx, q)
	if heldID(t, err) == id {
		t.Fatal("another login's statement was given the approval")
	}
	errs := make(chan error, 2)
	for _, c := range []*sql.Conn{a1, a2} {
		go func() { _, err := c.ExecContext(ctx, q); errs <- err }()
	}
	ok := 0
	for range 2 {
		if err := <-errs; err == nil {
			ok++
		}
	}
	if ok != 1 || f.ranCount(q) != 1 {
		t.Fatalf("%d resends succeeded, the upstream ran it %d times; want 1 and 1", ok, f.ranCount(q))
	}
}

// A Control Plane that cannot be reached: what needs approval is refused
// (50000 state 122) and not run; what needs none flows.
func TestDeadControlPlaneFailsClosed(t *testing.T) {
	f := newFixture(t)
	f.cp.Fail = ports.ErrUnavailable
	c := f.conn(returnApp)
	ctx := context.Background()
	_, err := c.ExecContext(ctx, "DELETE FROM t")
	if e := sqlErr(t, err, 50000); e.State != 122 {
		t.Fatalf("state %d", e.State)
	}
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT with the Control Plane down: %v", err)
	}
	if f.ranCount("DELETE FROM t") != 0 {
		t.Fatal("the DELETE ran")
	}
}

// A client that asked for encryption (login-only or full) and then sends
// its LOGIN7 in clear is not logged in: the handshake fails, nothing
// reaches the upstream.
func TestPlaintextLoginAfterAskingForEncryption(t *testing.T) {
	f := newFixture(t)
	for _, enc := range []byte{tds.EncryptOff, tds.EncryptOn, tds.EncryptReq} {
		conn, mr, _ := dialPrelogin(t, f.addr, enc)
		tds.WriteMessage(conn, tds.PacketLogin7, 0, 0, agentLogin().Encode(), 4096)
		for {
			m, err := mr.ReadMessage()
			if err != nil {
				break
			}
			for _, tok := range tokens(t, m.Data) {
				if tok.Type == tds.TokenLoginAck {
					t.Fatalf("ENCRYPTION %d: a clear LOGIN7 was logged in", enc)
				}
			}
		}
		conn.Close()
	}
	if n := len(f.up.Logins()); n != 0 {
		t.Fatalf("the upstream received %d logins", n)
	}
}

// A request that carries RESETCONNECTION but is denied still resets the
// upstream, before the next request: the listener went back to the login's
// database and forgot the transaction, and the upstream must too (else an
// approval filed for the login's database would run in the one a USE
// left, and a COMMIT would find the transaction the listener forgot, and
// its doomed state, open).
func TestDeniedRequestStillResetsTheUpstream(t *testing.T) {
	f := newFixture(t)
	c := returnClient(t, f)
	batch := func(text string) []byte {
		return (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: text}).Encode()
	}
	c.send(tds.PacketSQLBatch, batch("USE otherdb"))
	c.read()
	if err := tds.WriteMessage(c.conn, tds.PacketSQLBatch, tds.StatusResetConnection, 0, batch("DELETE FROM t"), tds.DefaultPacketSize); err != nil {
		t.Fatal(err)
	}
	if e := firstError(t, tokens(t, c.read().Data)); e.Number != 229 {
		t.Fatalf("ERROR %d %q", e.Number, e.Message)
	}
	c.send(tds.PacketSQLBatch, batch("SELECT 1"))
	c.read()
	for _, m := range f.up.Received() {
		if m.Status&tds.StatusResetConnection != 0 {
			return
		}
	}
	t.Fatal("the upstream was never reset")
}

// An answer the relay does not read to its end (here a RETURNVALUE larger
// than it holds, maxCarry) hides the ENVCHANGE of a USE after it: the
// listener asks the upstream where the session is, so the next statement
// is decided (and its approval filed) in the database it runs in.
func TestUnreadableAnswerDoesNotHideADatabaseChange(t *testing.T) {
	var mu sync.Mutex
	db, tran := "hoopdb", "0"
	large := returnValue(tds.TypeInfo{Type: tds.TypeNVarChar, Size: tds.MaxLenPLP, Collation: [5]byte{0x09, 0x04, 0xD0, 0x00, 0x34}},
		tdstest.NVarChar(strings.Repeat("x", maxCarry/2+512)))
	f := newFixture(t, func(_ *app.ListenerSettings, _ *app.CoreOptions, up *tdstest.Server) {
		onBatch := up.OnBatch
		up.OnBatch = func(b *tds.SQLBatch) []byte {
			mu.Lock()
			defer mu.Unlock()
			switch b.Text {
			case relearnText:
				return (&tds.Done{}).Append((&tds.ErrorInfo{Number: 50000, State: relearnState, Message: tran + " " + db}).Append(nil, tds.TokenInfo))
			case "SELECT shape FROM places; BEGIN TRAN":
				tran = "1"
				out := append([]byte{}, large...)
				out = (&tds.EnvChange{Type: tds.EnvBeginTran, NewValue: binary.LittleEndian.AppendUint64(nil, txDesc)}).Append(out)
				return (&tds.Done{}).Append(out)
			case "SELECT shape FROM places; USE otherdb":
				db = "otherdb"
				out := append([]byte{}, large...)
				out = tds.EnvString(tds.EnvDatabase, "otherdb", "hoopdb").Append(out)
				return (&tds.Done{}).Append(out)
			}
			return onBatch(b)
		}
	})
	c := returnClient(t, f)
	c.mr.MaxMessage = 16 << 20
	batch := func(text string) []byte {
		return (&tds.SQLBatch{Headers: tds.TxHeaders(0, 1), Text: text}).Encode()
	}
	c.send(tds.PacketSQLBatch, batch("SELECT shape FROM places; USE otherdb"))
	c.read()
	c.send(tds.PacketSQLBatch, batch("DELETE FROM t"))
	if e := firstError(t, tokens(t, c.read().Data)); e.Number != 229 {
		t.Fatalf("ERROR %d %q", e.Number, e.Message)
	}
	r := f.cp.Records()
	if len(r) != 1 || !strings.Contains(r[0].Statement, "-- database: otherdb") {
		t.Fatalf("the approver sees %q, want the database the DELETE runs in (otherdb)", r[len(r)-1].Statement)
	}
	// A BEGIN TRAN so hidden: the client's next request names the
	// transaction, and a denial in it dooms it.
	c.send(tds.PacketSQLBatch, batch("SELECT shape FROM places; BEGIN TRAN"))
	c.read()
	inTx := func(text string) []byte {
		return (&tds.SQLBatch{Headers: tds.TxHeaders(txDesc, 1), Text: text}).Encode()
	}
	c.send(tds.PacketSQLBatch, inTx("INSERT INTO t VALUES (1)"))
	c.read()
	c.send(tds.PacketSQLBatch, inTx("DELETE FROM t"))
	c.read()
	c.send(tds.PacketSQLBatch, inTx("COMMIT"))
	if e := firstError(t, tokens(t, c.read().Data)); e.Number != 3930 {
		t.Fatalf("COMMIT after a denial in a transaction the relay could not see begin: ERROR %d %q", e.Number, e.Message)
	}
}

// returnValue is a RETURNVALUE token (MS-TDS 2.2.7.18) of an OUTPUT
// parameter @v of type ti and value v.
func returnValue(ti tds.TypeInfo, v []byte) []byte {
	out := []byte{tds.TokenReturnValue, 1, 0, 2, '@', 0, 'v', 0, 0x01, 0, 0, 0, 0, 0x01, 0}
	return tds.AppendValue(ti.Append(out), ti, v)
}

// An Attention that arrives while the listener's own request is upstream
// (here the rollback of a doomed transaction's COMMIT) does not cancel it,
// and the client gets its DONE(ATTN): that request's answer is never
// relayed, so a forwarded Attention's DONE(ATTN) would not reach the client.
func TestAttentionDuringTheListenersOwnRequest(t *testing.T) {
	inRollback, release := make(chan struct{}), make(chan struct{})
	f := newFixture(t, func(_ *app.ListenerSettings, _ *app.CoreOptions, up *tdstest.Server) {
		onBatch := up.OnBatch
		up.OnBatch = func(b *tds.SQLBatch) []byte {
			if b.Text == "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION" {
				close(inRollback)
				<-release
			}
			return onBatch(b)
		}
	})
	c := returnClient(t, f)
	batch := func(text string) []byte {
		return (&tds.SQLBatch{Headers: tds.TxHeaders(txDesc, 1), Text: text}).Encode()
	}
	for _, q := range []string{"BEGIN TRAN", "DELETE FROM t"} {
		c.send(tds.PacketSQLBatch, batch(q))
		c.read()
	}
	c.send(tds.PacketSQLBatch, batch("COMMIT"))
	<-inRollback
	c.send(tds.PacketAttention, nil)
	// The listener reads the Attention while the rollback is upstream; let
	// the upstream answer once it had the time to (were it forwarded, the
	// upstream would read it after this answer).
	time.Sleep(200 * time.Millisecond)
	close(release)
	if e := firstError(t, tokens(t, c.read().Data)); e.Number != 3930 {
		t.Fatalf("COMMIT: ERROR %d %q", e.Number, e.Message)
	}
	toks := tokens(t, c.read().Data)
	if len(toks) != 1 || toks[0].Type != tds.TokenDone || binary.LittleEndian.Uint16(toks[0].Body)&tds.DoneAttn == 0 {
		t.Fatalf("after an Attention: %x, want DONE(ATTN)", toks)
	}
}

// spend_approval_on: accepted: a batch whose first statement ran before a
// later one failed ran once; its approval is spent, so a resend runs
// nothing without a new one.
func TestSpendOnAcceptedPartlyRunBatchSpendsTheApproval(t *testing.T) {
	const q = "DELETE FROM a; DELETE FROM b"
	f := newFixture(t, withSpend("accepted"), func(_ *app.ListenerSettings, _ *app.CoreOptions, up *tdstest.Server) {
		onBatch := up.OnBatch
		up.OnBatch = func(b *tds.SQLBatch) []byte {
			if b.Text != q {
				return onBatch(b)
			}
			onBatch(b) // recorded as run
			out := (&tds.Done{Status: tds.DoneCount | tds.DoneMore, RowCount: 3}).Append(nil)
			out = append(out, tdstest.Error(547, 16, "The DELETE statement conflicted with the REFERENCE constraint.")...)
			return (&tds.Done{Status: tds.DoneError}).Append(out)
		}
	})
	c := f.conn(returnApp)
	ctx := context.Background()
	_, err := c.ExecContext(ctx, q)
	id := heldID(t, err)
	f.approve(id)
	_, err = c.ExecContext(ctx, q)
	sqlErr(t, err, 547)
	_, err = c.ExecContext(ctx, q)
	if err == nil || f.ranCount(q) != 1 {
		t.Fatalf("the resend of a batch whose first DELETE ran: %v, upstream ran it %d times", err, f.ranCount(q))
	}
	heldID(t, err)
}

// The texts kept for prepared handles are bounded: past maxPreparedBytes a
// handle is not remembered (its sp_execute is UNKNOWN), so a client that
// prepares without end cannot exhaust the process's memory.
func TestPreparedTextsAreBounded(t *testing.T) {
	s := &session{log: slog.New(slog.DiscardHandler), prepared: map[int32]*prepared{}}
	big := strings.Repeat("x", 1<<20)
	for h := range int32(64) {
		s.remember(h, &prepared{text: big})
	}
	if s.preparedBytes > maxPreparedBytes || len(s.prepared) != maxPreparedBytes/len(big) {
		t.Fatalf("%d handles, %d bytes kept; bound %d", len(s.prepared), s.preparedBytes, maxPreparedBytes)
	}
	s.remember(0, &prepared{text: "SELECT 1"})
	if s.prepared[0] == nil || s.preparedBytes != (len(s.prepared)-1)*len(big)+len("SELECT 1") {
		t.Fatalf("after replacing a handle: %d bytes kept", s.preparedBytes)
	}
	s.forgetAll()
	if s.preparedBytes != 0 || len(s.prepared) != 0 {
		t.Fatal("forgetAll kept some")
	}
}
