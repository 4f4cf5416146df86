package tdstest

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/tds"
)

// Mini is a small stand-in for SQL Server 2022 built on Server: it checks
// LOGIN7 credentials, answers the login as SQL Server does (ENVCHANGE
// database, language, collation and packet size, LOGINACK), and executes a
// handful of pattern-matched statements over an in-memory table store,
// recording each one it executed so a test can prove what ran and how
// often. It is not a SQL engine; minisql.go lists what it understands and
// everything else is ERROR 102 (nothing of that batch runs).
//
// Per connection it tracks the current database (USE → ENVCHANGE 1), the
// transaction (BEGIN TRAN / COMMIT / ROLLBACK → ENVCHANGE 8/9/10 with an
// 8-byte descriptor; ROLLBACK restores the tables), SET XACT_ABORT, and
// prepared handles (sp_prepare, sp_execute, sp_prepexec, sp_unprepare).
// sp_executesql runs its text with its typed parameters. WAITFOR DELAY
// 'hh:mm:ss' leaves the request running until the delay ends or the
// client's Attention arrives (DONE with the attention bit; Attentions
// counts it). SELECT TOP n … FROM big streams n generated rows packet by
// packet, never holding the result in memory. KILL spid (the number
// @@SPID returns) closes that session's connection, as SQL Server ends a
// killed session: a test can end an idle upstream connection.
type Mini struct {
	// Users maps login names to passwords; a LOGIN7 with another user or
	// password is refused with error 18456. Empty: any login is accepted.
	Users map[string]string
	// Databases that exist besides master and tempdb (CREATE DATABASE adds
	// more).
	Databases []string
	// ServerName appears in ERROR and INFO tokens (default "hoop-standin").
	ServerName string
	// NoLog keeps no record of executed statements nor of received
	// messages (Executed, Received stay empty): for long benchmarks.
	NoLog bool

	Server

	once     sync.Once
	addr     string
	mu       sync.Mutex
	dbs      map[string]bool
	tables   map[string]*table // "db.name" (lower case)
	executed []Executed
	attn     int
	conns    int
	live     map[int]*miniSession // sessions whose connection is open, by number
	tranSeq  uint64
	handles  int32
}

// Executed is one statement the stand-in ran.
type Executed struct {
	Conn     int    // connection number, from 1
	User     string // LOGIN7 user
	Database string // current database when it ran
	Text     string // the statement (one of a batch), trimmed
	Params   []any  // parameter values (int64, string, float64, bool, nil)
}

func (m *Mini) init() {
	m.once.Do(func() {
		m.dbs = map[string]bool{"master": true, "tempdb": true}
		for _, d := range m.Databases {
			m.dbs[strings.ToLower(d)] = true
		}
		m.tables = map[string]*table{}
		m.Server.noRecord = m.NoLog
		if m.ServerName == "" {
			m.ServerName = "hoop-standin"
		}
		m.Server.Session = func() Session {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.conns++
			s := &miniSession{m: m, conn: m.conns, db: "master", prepared: map[int32]prepared{}}
			if m.live == nil {
				m.live = map[int]*miniSession{}
			}
			m.live[s.conn] = s
			return s
		}
	})
}

// Start listens on 127.0.0.1:0 until the test ends and returns the
// address; later calls return the same address.
func (m *Mini) Start(t testing.TB) string {
	m.init()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.addr == "" {
		m.addr = m.Server.Start(t)
	}
	return m.addr
}

// Listen serves on addr (host:port; port 0 picks one) until Close, for a
// process that is not a test (bench/mssqlupstream); it returns the address.
func (m *Mini) Listen(addr string) (string, error) {
	m.init()
	return m.Server.Listen(addr)
}

// Executed returns every statement run so far, in order, across
// connections.
func (m *Mini) Executed() []Executed {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Executed(nil), m.executed...)
}

// Ran counts the executed statements whose text is text (compared without
// case and surrounding space).
func (m *Mini) Ran(text string) int {
	n := 0
	for _, e := range m.Executed() {
		if strings.EqualFold(e.Text, strings.TrimSpace(text)) {
			n++
		}
	}
	return n
}

// Attentions returns how many Attention messages arrived while a request
// was running (a cancelled WAITFOR, a cancelled long result).
func (m *Mini) Attentions() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.attn
}

// Rows returns the number of rows in db's table name, -1 when there is none.
func (m *Mini) Rows(db, name string) int {
	m.init()
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tables[tableKey(db, name)]
	if t == nil {
		return -1
	}
	return len(t.rows)
}

type prepared struct {
	text string
	defs []string // parameter names in declaration order
}

type miniSession struct {
	m        *Mini
	conn     int
	user     string
	db       string
	loginDB  string
	tranDesc uint64
	tranN    int
	snapshot map[string]*table
	xabort   bool
	prepared map[int32]prepared
	pending  []stmt // statements after a running WAITFOR
	pendCtx  execCtx
}

// collation is Latin1_General_CI_AS / SQL_Latin1_General_CP1_CI_AS as SQL
// Server 2022 announces it in the login's ENVCHANGE 7.
var collation = []byte{0x09, 0x04, 0xD0, 0x00, 0x34}

func (s *miniSession) Login(l *tds.Login7, packetSize int) ([]byte, bool) {
	m := s.m
	if l.OptionFlags2&tds.Flag2IntSecurity != 0 || len(l.SSPI) > 0 {
		out := m.errTok(18452, 14, 1, "Login failed. The login is from an untrusted domain and cannot be used with Integrated authentication.")
		return (&tds.Done{Status: tds.DoneError}).Append(out), false
	}
	if len(m.Users) > 0 {
		if pw, ok := m.Users[l.UserName]; !ok || pw != l.Password {
			out := m.errTok(18456, 14, 1, fmt.Sprintf("Login failed for user '%s'.", l.UserName))
			return (&tds.Done{Status: tds.DoneError}).Append(out), false
		}
	}
	s.user = l.UserName
	db := "master"
	if l.Database != "" {
		db = l.Database
	}
	m.mu.Lock()
	exists := m.dbs[strings.ToLower(db)]
	m.mu.Unlock()
	if !exists {
		out := m.errTok(4060, 11, 1, fmt.Sprintf("Cannot open database \"%s\" requested by the login. The login failed.", db))
		out = append(out, m.errTok(18456, 14, 1, fmt.Sprintf("Login failed for user '%s'.", l.UserName))...)
		return (&tds.Done{Status: tds.DoneError}).Append(out), false
	}
	s.db, s.loginDB = db, db
	out := tds.EnvString(tds.EnvDatabase, db, "master").Append(nil)
	out = m.infoTok(out, 5701, 2, "Changed database context to '"+db+"'.")
	out = (&tds.EnvChange{Type: tds.EnvCollation, NewValue: collation}).Append(out)
	out = tds.EnvString(tds.EnvLanguage, "us_english", "").Append(out)
	out = m.infoTok(out, 5703, 1, "Changed language setting to us_english.")
	ack := &tds.LoginAck{Interface: 1, TDSVersion: tds.Version74, ProgName: "Microsoft SQL Server", Major: 16, Minor: 0, BuildHi: 0x10, BuildLo: 0xD4}
	out = ack.Append(out)
	out = tds.EnvString(tds.EnvPacketSize, strconv.Itoa(packetSize), strconv.Itoa(packetSize)).Append(out)
	return (&tds.Done{}).Append(out), true
}

func (s *miniSession) Batch(b *tds.SQLBatch, w *Reply) time.Duration {
	stmts, err := splitBatch(b.Text)
	if err != nil {
		w.Write(s.m.errTok(102, 15, 1, err.Error()))
		w.Write((&tds.Done{Status: tds.DoneError}).Append(nil))
		w.End()
		return 0
	}
	return s.run(stmts, execCtx{done: tds.TokenDone}, w)
}

func (s *miniSession) RPC(r *tds.RPC, w *Reply) time.Duration {
	if len(r.Calls) != 1 {
		return s.rpcError(w, 50000, 16, "the stand-in answers one RPC call per request")
	}
	c := r.Calls[0]
	ctx := execCtx{done: tds.TokenDoneInProc, rpc: true}
	switch c.Proc() {
	case tds.ProcExecuteSQL:
		text, vals, ok := c.Statement()
		if !ok {
			return s.rpcError(w, 214, 16, "Procedure expects parameter '@statement' of type 'ntext/nchar/nvarchar'.")
		}
		var defs []string
		if len(c.Params) > 1 {
			defs = paramNames(paramText(c.Params[1]))
		}
		ctx.params, ctx.order = bindParams(defs, vals)
		return s.runText(text, ctx, w)
	case tds.ProcPrepare, tds.ProcPrepExec:
		text, vals, ok := c.Statement()
		if !ok || len(c.Params) < 3 {
			return s.rpcError(w, 8144, 16, "Procedure or function sp_prepare has too many arguments specified.")
		}
		defs := paramNames(paramText(c.Params[1]))
		s.m.mu.Lock()
		s.m.handles++
		h := s.m.handles
		s.m.mu.Unlock()
		s.prepared[h] = prepared{text: text, defs: defs}
		ctx.handle = &returnValue{name: c.Params[0].Name, handle: h}
		if c.Proc() == tds.ProcPrepare {
			return s.runStmts(nil, ctx, w)
		}
		ctx.params, ctx.order = bindParams(defs, vals)
		return s.runText(text, ctx, w)
	case tds.ProcExecute:
		if len(c.Params) < 1 {
			return s.rpcError(w, 201, 16, "Procedure or function 'sp_execute' expects parameter '@handle', which was not supplied.")
		}
		p, ok := s.prepared[int32(intValue(c.Params[0]))]
		if !ok {
			return s.rpcError(w, 8179, 16, "Could not find prepared statement with handle "+strconv.FormatInt(intValue(c.Params[0]), 10)+".")
		}
		ctx.params, ctx.order = bindParams(p.defs, c.Params[1:])
		return s.runText(p.text, ctx, w)
	case tds.ProcUnprepare:
		if len(c.Params) > 0 {
			delete(s.prepared, int32(intValue(c.Params[0])))
		}
		return s.runStmts(nil, ctx, w)
	}
	name := c.ProcName
	if name == "" {
		name = "#" + strconv.Itoa(int(c.ProcID))
	}
	return s.rpcError(w, 2812, 16, fmt.Sprintf("Could not find stored procedure '%s'.", name))
}

// Transaction answers TM_BEGIN_XACT (5), TM_COMMIT_XACT (7) and
// TM_ROLLBACK_XACT (8) as BEGIN TRAN, COMMIT and ROLLBACK; the request is
// ALL_HEADERS then the USHORT request type (MS-TDS 2.2.6.9).
func (s *miniSession) Transaction(data []byte, w *Reply) {
	op := ""
	if len(data) >= 4 {
		if n := int(binary.LittleEndian.Uint32(data)); n >= 4 && n+2 <= len(data) {
			switch binary.LittleEndian.Uint16(data[n:]) {
			case 5:
				op = "BEGIN TRANSACTION"
			case 7:
				op = "COMMIT TRANSACTION"
			case 8:
				op = "ROLLBACK TRANSACTION"
			}
		}
	}
	if op == "" {
		w.Write(s.m.errTok(50000, 16, 1, "The hoop stand-in for SQL Server answers only begin, commit and rollback transaction requests."))
		w.Write((&tds.Done{Status: tds.DoneError}).Append(nil))
		w.End()
		return
	}
	st, _ := parseStmt(op)
	s.runStmts([]stmt{st}, execCtx{done: tds.TokenDone}, w)
}

func (s *miniSession) runText(text string, ctx execCtx, w *Reply) time.Duration {
	stmts, err := splitBatch(text)
	if err != nil {
		return s.rpcError(w, 102, 15, err.Error())
	}
	return s.run(stmts, ctx, w)
}

func (s *miniSession) rpcError(w *Reply, num int32, class byte, msg string) time.Duration {
	w.Write(s.m.errTok(num, class, 1, msg))
	w.Write((&tds.Done{Token: tds.TokenDoneProc, Status: tds.DoneError}).Append(nil))
	w.End()
	return 0
}

// run parses every statement of a batch before running any (an unknown one
// fails the whole batch, as a compile error does), then runs them.
func (s *miniSession) run(texts []string, ctx execCtx, w *Reply) time.Duration {
	var stmts []stmt
	for _, t := range texts {
		st, err := parseStmt(t)
		if err != nil {
			w.Write(s.m.errTok(102, 15, 1, err.Error()))
			tok := ctx.done
			if ctx.rpc {
				tok = tds.TokenDoneProc
			}
			w.Write((&tds.Done{Token: tok, Status: tds.DoneError}).Append(nil))
			w.End()
			return 0
		}
		stmts = append(stmts, st)
	}
	return s.runStmts(stmts, ctx, w)
}

func (s *miniSession) runStmts(stmts []stmt, ctx execCtx, w *Reply) time.Duration {
	for i, st := range stmts {
		last := i == len(stmts)-1
		if wd, ok := st.(*waitStmt); ok {
			s.record(st.text(), ctx)
			s.pending, s.pendCtx = stmts[i+1:], ctx
			return wd.d
		}
		ctx.wrote = true
		if failed := s.exec(st, ctx, last, w); failed {
			break
		}
	}
	s.end(ctx, w)
	return 0
}

// end closes a response: an RPC's RETURNVALUE, RETURNSTATUS and DONEPROC;
// a batch's last DONE is already written.
func (s *miniSession) end(ctx execCtx, w *Reply) {
	if ctx.rpc {
		out := []byte{tds.TokenReturnStatus, 0, 0, 0, 0}
		if ctx.handle != nil {
			out = ctx.handle.append(out)
		}
		w.Write((&tds.Done{Token: tds.TokenDoneProc}).Append(out))
	} else if !ctx.wrote {
		w.Write((&tds.Done{}).Append(nil))
	}
	w.End()
}

func (s *miniSession) Elapsed(w *Reply) {
	rest, ctx := s.pending, s.pendCtx
	s.pending = nil
	if len(rest) == 0 {
		w.Write((&tds.Done{Token: ctx.done}).Append(nil))
		ctx.wrote = true
		s.end(ctx, w)
		return
	}
	w.Write((&tds.Done{Token: ctx.done, Status: tds.DoneMore}).Append(nil))
	s.runStmts(rest, ctx, w)
}

func (s *miniSession) Attention(running bool) {
	s.pending = nil
	if running {
		s.m.mu.Lock()
		s.m.attn++
		s.m.mu.Unlock()
	}
}

// Reset does what sp_reset_connection does to the state the stand-in
// keeps: back to the login's database, prepared handles and SET XACT_ABORT
// dropped, an open transaction rolled back unless skipTran.
func (s *miniSession) Reset(skipTran bool) []byte {
	if s.tranN > 0 && !skipTran {
		s.rollback() // the client learns it from the reset, not from ENVCHANGE 10
	}
	s.db, s.xabort = s.loginDB, false
	clear(s.prepared)
	return (&tds.EnvChange{Type: tds.EnvResetConnAck}).Append(nil)
}

func (s *miniSession) Close() {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	delete(s.m.live, s.conn)
	if s.tranN > 0 {
		s.m.tables = s.snapshot
	}
}

// spid is the session id @@SPID returns and KILL takes.
func (s *miniSession) spid() int { return 50 + s.conn }

// kill closes the connection of the session whose @@SPID is spid (KILL):
// its open transaction is rolled back when it ends (Close). It reports
// whether that session was open.
func (m *Mini) kill(spid int) bool {
	m.mu.Lock()
	s := m.live[spid-50]
	m.mu.Unlock()
	return s != nil && m.Server.closeSession(s)
}

func (s *miniSession) record(text string, ctx execCtx) {
	if s.m.NoLog {
		return
	}
	var ps []any
	for _, p := range ctx.paramOrder() {
		ps = append(ps, p)
	}
	s.m.mu.Lock()
	s.m.executed = append(s.m.executed, Executed{Conn: s.conn, User: s.user, Database: s.db, Text: text, Params: ps})
	s.m.mu.Unlock()
}

// execCtx is how a statement's answer ends and what its parameters are.
type execCtx struct {
	done   byte // TokenDone (batch) or TokenDoneInProc (RPC)
	rpc    bool
	params map[string]any
	order  []string
	handle *returnValue
	wrote  bool // a statement's DONE was written
}

func (c execCtx) paramOrder() []any {
	var out []any
	for _, n := range c.order {
		out = append(out, c.params[n])
	}
	return out
}

type returnValue struct {
	name   string
	handle int32
}

// append writes RETURNVALUE (MS-TDS 2.2.7.19) for an sp_prepare handle:
// ordinal 0, the parameter's name, status 1 (output), user type 0, flags
// 0, INTN(4).
func (r *returnValue) append(dst []byte) []byte {
	dst = append(dst, tds.TokenReturnValue, 0, 0)
	name := tds.AppendUCS2(nil, r.name)
	dst = append(dst, byte(len(name)/2))
	dst = append(dst, name...)
	dst = append(dst, 1, 0, 0, 0, 0, 0, 0)
	ti := tds.TypeInfo{Type: tds.TypeIntN, Size: 4}
	dst = ti.Append(dst)
	return tds.AppendValue(dst, ti, binary.LittleEndian.AppendUint32(nil, uint32(r.handle)))
}

// bindParams names the values of an RPC: by the name each carries, else
// by its position in the definition list.
func bindParams(defs []string, vals []tds.Param) (map[string]any, []string) {
	out := map[string]any{}
	var order []string
	for i, v := range vals {
		name := strings.ToLower(v.Name)
		if name == "" && i < len(defs) {
			name = strings.ToLower(defs[i])
		}
		out[name] = paramValue(v)
		order = append(order, name)
	}
	return out, order
}

func paramText(p tds.Param) string {
	switch p.Type.Type {
	case tds.TypeNVarChar, tds.TypeNChar, tds.TypeNText:
		return tds.DecodeUCS2(p.Value)
	}
	return string(p.Value)
}

// paramNames returns the names of a parameter definition list
// ("@p1 bigint, @p2 nvarchar(4000)").
func paramNames(defs string) []string {
	var out []string
	for _, d := range splitTop(defs, ',') {
		if f := strings.Fields(d); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

func intValue(p tds.Param) int64 {
	switch v := paramValue(p).(type) {
	case int64:
		return v
	}
	return -1
}

// paramValue maps a parameter to int64, float64, bool, string or nil.
func paramValue(p tds.Param) any {
	if p.Value == nil {
		return nil
	}
	v := p.Value
	switch p.Type.Type {
	case tds.TypeIntN, tds.TypeInt1, tds.TypeInt2, tds.TypeInt4, tds.TypeInt8:
		switch len(v) {
		case 1:
			return int64(v[0])
		case 2:
			return int64(int16(binary.LittleEndian.Uint16(v)))
		case 4:
			return int64(int32(binary.LittleEndian.Uint32(v)))
		case 8:
			return int64(binary.LittleEndian.Uint64(v))
		}
	case tds.TypeBitN, tds.TypeBit:
		return len(v) > 0 && v[0] != 0
	case tds.TypeFltN, tds.TypeFlt8, tds.TypeFlt4:
		if len(v) == 8 {
			return math.Float64frombits(binary.LittleEndian.Uint64(v))
		}
		if len(v) == 4 {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(v)))
		}
	case tds.TypeNVarChar, tds.TypeNChar, tds.TypeNText:
		return tds.DecodeUCS2(v)
	case tds.TypeBigVarChar, tds.TypeBigChar, tds.TypeVarChar, tds.TypeChar, tds.TypeText:
		return string(v)
	}
	return fmt.Sprintf("0x%X", v)
}

func (m *Mini) errTok(num int32, class, state byte, msg string) []byte {
	e := &tds.ErrorInfo{Number: num, State: state, Class: class, Message: msg, ServerName: m.ServerName, Line: 1}
	return e.Append(nil, tds.TokenError)
}

func (m *Mini) infoTok(dst []byte, num int32, state byte, msg string) []byte {
	e := &tds.ErrorInfo{Number: num, State: state, Class: 0, Message: msg, ServerName: m.ServerName, Line: 1}
	return e.Append(dst, tds.TokenInfo)
}
