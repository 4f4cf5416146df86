package mssql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mssqldb "github.com/microsoft/go-mssqldb"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
	"github.com/hoophq/sidecar/internal/tds/tdstls"
	"github.com/hoophq/sidecar/internal/testlog"
	"github.com/hoophq/sidecar/ports"
)

// fixture is one mssql listener in front of an in-process TDS upstream
// (tdstest) that keeps a tiny state: the current database and one
// transaction, and the text of every statement it ran.
type fixture struct {
	t      testing.TB
	cp     *fakecp.CP
	up     *tdstest.Server
	l      *app.Listener
	addr   string
	upAddr string // the upstream, for direct connections

	mu        sync.Mutex
	ran       []string           // batch texts and RPC statements the upstream ran
	decisions []string           // the gate's audit decisions
	masked    []ports.AuditEvent // its "masked" and "mask_withheld" lines
	wait      chan struct{}
}

// Record implements ports.AuditSink: the fixture keeps the decisions.
func (f *fixture) Record(e ports.AuditEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decisions = append(f.decisions, e.Decision)
	if strings.HasPrefix(e.Decision, "mask") {
		f.masked = append(f.masked, e)
	}
}

// waitDecision waits (≤ 10 s) until the gate has recorded decision d.
func (f *fixture) waitDecision(d string) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		found := slices.Contains(f.decisions, d)
		f.mu.Unlock()
		if found {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.t.Fatalf("the gate never recorded %s", d)
}

type option func(*app.ListenerSettings, *app.CoreOptions, *tdstest.Server)

func withMode(m app.Mode) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions, _ *tdstest.Server) { s.Mode = m }
}
func withSpend(sp ports.SpendOn) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions, _ *tdstest.Server) { s.SpendOn = sp }
}
func withMCP() option {
	return func(_ *app.ListenerSettings, o *app.CoreOptions, _ *tdstest.Server) { o.WithMCP = true }
}
func withActions(actions ...string) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions, _ *tdstest.Server) {
		s.Approvals[0].Match.Actions = actions
	}
}

// withUpstreamEncryption sets the tdstest upstream's encryption setting.
func withUpstreamEncryption(e tdstls.Setting) option {
	return func(_ *app.ListenerSettings, _ *app.CoreOptions, up *tdstest.Server) { up.Encryption = e }
}

func withTLS(cert, key string) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions, _ *tdstest.Server) {
		s.TLS = app.TLSServer{CertFile: cert, KeyFile: key}
	}
}
func withUpstreamTLS(t app.TLSClient) option {
	return func(s *app.ListenerSettings, _ *app.CoreOptions, _ *tdstest.Server) { s.UpstreamTLS = t }
}

// withBatchAnswer lets answer reply to a batch first; a nil reply leaves
// it to the fixture's upstream.
func withBatchAnswer(answer func(*tds.SQLBatch) []byte) option {
	return func(_ *app.ListenerSettings, _ *app.CoreOptions, up *tdstest.Server) {
		next := up.OnBatch
		up.OnBatch = func(b *tds.SQLBatch) []byte {
			if r := answer(b); r != nil {
				return r
			}
			return next(b)
		}
	}
}
func withHeld(n int64) option {
	return func(_ *app.ListenerSettings, o *app.CoreOptions, _ *tdstest.Server) { o.Limits.HeldBytes = n }
}

const txDesc uint64 = 0x1122334455667788

func newFixture(t testing.TB, opts ...option) *fixture {
	t.Helper()
	f := &fixture{t: t, cp: fakecp.New(nil), wait: make(chan struct{}, 4)}
	f.up = &tdstest.Server{Database: "hoopdb", OnBatch: f.onBatch, OnRPC: f.onRPC}
	s := app.ListenerSettings{Name: "unit-mssql", Protocol: "mssql", Mode: app.ModeWait, SpendOn: ports.SpendOnSent,
		Approvals: []domain.ApprovalRule{{Name: "destructive", Match: domain.Match{Actions: []string{"DELETE", "DROP", "UNKNOWN"}}}}}
	o := app.CoreOptions{Sidecar: "test", CP: f.cp}
	for _, opt := range opts {
		opt(&s, &o, f.up)
	}
	f.upAddr = f.up.Start(t)
	s.Upstream = f.upAddr
	if err := s.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	core := listenertest.NewCore(f.cp, o.Limits)
	core.Gate.WithMCP = o.WithMCP
	core.Gate.Audit = f
	f.l = core.Listener(s)
	f.addr = listenertest.Serve(t, New(nil), f.l)
	return f
}

// onBatch answers the upstream's batches: USE and BEGIN/COMMIT/ROLLBACK
// TRAN change the state (with their ENVCHANGE), WAITFOR is answered only by
// an Attention, FAIL is an error, anything else runs (one row: 1).
func (f *fixture) onBatch(b *tds.SQLBatch) []byte {
	text := strings.TrimSpace(b.Text)
	f.mu.Lock()
	f.ran = append(f.ran, text)
	f.mu.Unlock()
	up := strings.ToUpper(text)
	desc := make([]byte, 8)
	for i := range desc {
		desc[i] = byte(txDesc >> (8 * i))
	}
	switch {
	case text == relearnText: // as SQL Server answers it: no transaction, the login's database
		return (&tds.Done{}).Append((&tds.ErrorInfo{Number: 50000, State: relearnState, Message: "0 hoopdb"}).Append(nil, tds.TokenInfo))
	case strings.HasPrefix(up, "USE "):
		db := strings.Trim(strings.TrimSpace(text[4:]), "[];")
		return (&tds.Done{}).Append(tds.EnvString(tds.EnvDatabase, db, "hoopdb").Append(nil))
	case strings.HasPrefix(up, "BEGIN TRAN"):
		return (&tds.Done{Status: tds.DoneInXact}).Append((&tds.EnvChange{Type: tds.EnvBeginTran, NewValue: desc}).Append(nil))
	case strings.HasPrefix(up, "COMMIT"):
		return (&tds.Done{}).Append((&tds.EnvChange{Type: tds.EnvCommitTran, OldValue: desc}).Append(nil))
	case strings.HasPrefix(up, "ROLLBACK TRAN SP"): // to a savepoint: the transaction stays open
		return (&tds.Done{Status: tds.DoneInXact}).Append(nil)
	case strings.HasPrefix(up, "ROLLBACK"), strings.HasPrefix(up, "IF @@TRANCOUNT > 0 ROLLBACK"):
		return (&tds.Done{}).Append((&tds.EnvChange{Type: tds.EnvRollbackTran, OldValue: desc}).Append(nil))
	case strings.HasPrefix(up, "WAITFOR"):
		f.wait <- struct{}{}
		return nil
	case strings.HasPrefix(up, "FAIL"):
		return (&tds.Done{Status: tds.DoneError}).Append(tdstest.Error(547, 16, "The DELETE statement conflicted with the REFERENCE constraint."))
	case strings.HasPrefix(up, "DELETE"), strings.HasPrefix(up, "UPDATE"), strings.HasPrefix(up, "INSERT"):
		return (&tds.Done{Status: tds.DoneCount, RowCount: 1}).Append(nil)
	}
	return tdstest.ResultSet([]tds.Column{tdstest.IntColumn("")}, [][][]byte{{tdstest.Int4(1)}}, tds.TokenDone, false)
}

// onRPC answers sp_executesql and sp_prepexec (returning handle 7), and
// sp_execute of handle 7, as one DONE of one row.
func (f *fixture) onRPC(r *tds.RPC) []byte {
	c := r.Calls[0]
	text, _, ok := c.Statement()
	var out []byte
	switch c.Proc() {
	case tds.ProcExecute:
		text, ok = "sp_execute", true
	case tds.ProcPrepExec:
		rv := []byte{tds.TokenReturnValue, 0, 0, 7}
		rv = append(rv, tds.AppendUCS2(nil, "@handle")...)
		rv = append(rv, 1, 0, 0, 0, 0, 0, 0, tds.TypeIntN, 4, 4, 7, 0, 0, 0)
		rv[3] = byte(len("@handle"))
		out = rv
	}
	if !ok {
		text = "proc " + c.ProcName
	}
	f.mu.Lock()
	f.ran = append(f.ran, text)
	f.mu.Unlock()
	if strings.HasPrefix(text, "FAIL") {
		out = append(out, tdstest.Error(547, 16, "conflict")...)
		return (&tds.Done{Token: tds.TokenDoneProc, Status: tds.DoneError}).Append(out)
	}
	out = (&tds.Done{Token: tds.TokenDoneInProc, Status: tds.DoneCount | tds.DoneMore, RowCount: 1}).Append(out)
	return append(out, tdstest.ProcEnd()...)
}

// ranCount returns how many times the upstream ran text.
func (f *fixture) ranCount(text string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.ran {
		if r == text {
			n++
		}
	}
	return n
}

// conn opens one go-mssqldb connection (encrypt=disable) as agent with the
// given app name.
func (f *fixture) conn(appName string) *sql.Conn { return f.connAs("agent", appName) }

// connAs opens one go-mssqldb connection (encrypt=disable) as user with the
// given app name.
func (f *fixture) connAs(user, appName string) *sql.Conn {
	f.t.Helper()
	q := url.Values{"database": {"hoopdb"}, "encrypt": {"disable"}, "app name": {appName}}
	dsn := fmt.Sprintf("sqlserver://%s:S3cret%%21pw@%s?%s", user, f.addr, q.Encode())
	db, err := sql.Open("sqlserver", dsn)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { db.Close() })
	c, err := db.Conn(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { c.Close() })
	return c
}

const returnApp = "agent hoop-approval=return"

var approvalID = regexp.MustCompile(`approval (ap-\d+)`)

// sqlErr returns err as a go-mssqldb error with the given number.
func sqlErr(t testing.TB, err error, number int32) mssqldb.Error {
	t.Helper()
	var me mssqldb.Error
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T), want SQL Server error %d", err, err, number)
	}
	if me.Number != number {
		t.Fatalf("error %d %q, want %d", me.Number, me.Message, number)
	}
	return me
}

// heldID returns the approval id of a denial (ERROR 229).
func heldID(t testing.TB, err error) string {
	t.Helper()
	me := sqlErr(t, err, 229)
	m := approvalID.FindStringSubmatch(me.Message)
	if m == nil {
		t.Fatalf("no approval id in %q", me.Message)
	}
	return m[1]
}

func (f *fixture) approve(id string) {
	f.t.Helper()
	if err := f.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		f.t.Fatal(err)
	}
}

// startable is an in-process TDS upstream (tdstest.Server, tdstest.Mini).
type startable interface{ Start(testing.TB) string }

// loggedListener serves a wait-mode listener in front of up and returns
// its address and the buffer its text log goes to.
func loggedListener(t *testing.T, up startable) (string, *testlog.Buffer) {
	buf := &testlog.Buffer{}
	s := app.ListenerSettings{Name: "unit-mssql", Protocol: "mssql", Mode: app.ModeWait, SpendOn: ports.SpendOnSent, Upstream: up.Start(t)}
	l := listenertest.NewCore(nil, app.Limits{}).Listener(s)
	return listenertest.Serve(t, New(slog.New(slog.NewTextHandler(buf, nil))), l), buf
}
