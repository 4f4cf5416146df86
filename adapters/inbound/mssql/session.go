package mssql

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/tds"
)

// Request states (session.state). TDS without MARS is request/answer, but
// an Attention may arrive at any time, so its meaning depends on where the
// current request is.
const (
	// stIdle: no request; an Attention is answered DONE(ATTN) by the listener.
	stIdle = iota
	// stBusy: a request is being read, decided or finished by the listener;
	// an Attention cancels it (a wait for approval ends) and the listener
	// answers DONE(ATTN).
	stBusy
	// stForwarded: the upstream has the request; an Attention is forwarded
	// and the upstream's DONE(ATTN) ends its answer.
	stForwarded
)

// session is one client connection and its upstream connection, after
// login. Three goroutines share it:
//
//   - the reader (attention.go) reads the client's messages: requests go to
//     the decider one at a time, Attention is handled at once, and a
//     hang-up ends a wait for approval;
//   - the decider (run, batch.go, rpc.go, transaction.go) decides each
//     request, forwards it or answers it, and waits for the upstream's
//     answer to end;
//   - the relay (relay.go) copies the upstream's answers to the client
//     packet by packet, reading the tokens that change the session.
type session struct {
	p   *Protocol
	l   *app.Listener
	log *slog.Logger

	client     net.Conn
	cr         *bufio.Reader
	up         net.Conn
	ur         *bufio.Reader
	clientAddr string
	// cursorReads is what the T-SQL cursors the session declared read, for
	// the masking rules' match (maskPlan); nil before the first.
	cursorReads *domain.Analysis

	cwMu sync.Mutex          // the client connection's writer: whole packets, in order
	hdr  [tds.HeaderLen]byte // copyPacket's header bytes, under cwMu
	cw   *bufio.Writer
	uwMu sync.Mutex // the upstream connection: a request's packets, then an Attention

	packetSize atomic.Int32 // negotiated (LOGIN7, ENVCHANGE type 4)
	spid       uint16       // the upstream's session id, in the header of every reply

	features   tds.Features // what the upstream's FEATUREEXTACK acknowledged at login: how its tokens are laid out
	user       string       // the LOGIN7 user: the identity
	returnMode bool         // hoop-approval=return in the LOGIN7 app name

	// Owned by the decider.
	doomed   bool   // a statement was denied inside the open transaction (transaction.go)
	doomedTx uint64 // that transaction's descriptor
	// resetPending holds RESETCONNECTION bits the listener applied (reset)
	// but the upstream has not seen yet, for the next message forwarded.
	resetPending  byte
	prepared      map[int32]*prepared // sp_prepare / sp_prepexec handles (rpc.go)
	preparedBytes int                 // their texts' size, bounded by maxPreparedBytes (rpc.go)

	reqs     chan request  // reader → decider
	respDone chan response // relay → decider: the forwarded request's answer ended
	stop     chan struct{} // closed when the session ends
	// ctx ends when the session does (the reader saw the client hang up,
	// the drain or a failure closed it): the analyzer's wait for its parse
	// budget and the reader's for the held-payload budget end with it.
	ctx    context.Context
	cancel context.CancelFunc

	// Under mu: shared by the three goroutines and the drain.
	mu          sync.Mutex
	cond        *sync.Cond // state became stIdle, or the session closed
	state       int
	database    string         // the current database (LOGINACK's and later ENVCHANGE type 1)
	loginDB     string         // the database the login ended in (RESETCONNECTION goes back to it)
	tx          uint64         // the open transaction's descriptor (ENVCHANGE 8/9/10/17), 0 outside one
	txUnknown   bool           // a transaction is open whose ENVCHANGE the relay could not read (relearn)
	attnCancel  bool           // an Attention arrived for the request in stBusy, not yet answered
	attnPending int            // Attentions forwarded whose DONE(ATTN) has not come back
	discard     bool           // the forwarded request is the listener's own: its answer is not relayed
	wantHandle  bool           // the forwarded request returns a prepared handle (RETURNVALUE)
	onEnd       func(response) // called by the relay before the answer's last packet reaches the client
	mask        *masker        // the forwarded request's results are masked (mask.go); nil: relayed as they come
	draining    bool
	closed      bool
	closeOnce   sync.Once
	// wait ends a held statement's wait from the reader (an Attention, a
	// hang-up) or the drain; holdSpec is made once by holdFor.
	wait     app.WaitHandle
	holdSpec *app.Hold
}

// request is one client message for the decider.
type request struct {
	msg  tds.Message
	held app.Reservations
	// refused is set when the held-payload budget refused the message
	// (skipped unread): the decider answers ERROR 701.
	refused *app.BudgetError
}

// response is what the relay read of the upstream's answer to a forwarded
// request.
type response struct {
	failed    bool   // an ERROR token (class ≥ 11), or DONE with DONE_ERROR / DONE_SRVERROR
	errNumber int32  // the number of the first ERROR token of class ≥ 11 (0: none read)
	inProc    bool   // an ERROR token raised inside a module (its ProcName set: a trigger, function, procedure)
	attn      bool   // DONE(ATTN): the request was cancelled
	ran       bool   // a statement of it completed (DONE or DONEINPROC without an error or attention bit)
	handle    *int32 // the first integer RETURNVALUE, when wantHandle
	env       []byte // ENVCHANGE tokens of an answer not relayed (discard)
	lost      bool   // the relay could not frame the tokens of this answer
	state     string // the INFO of the listener's relearn batch (discard only)
	aborted   bool   // the session ended before the answer did
	withheld  error  // a masking rule withheld the rest of the result (mask.go)
	unsent    bool   // cancelled by the client before it was forwarded
}

func newSession(p *Protocol, l *app.Listener, log *slog.Logger, client net.Conn, cr *bufio.Reader, up net.Conn, ur *bufio.Reader) *session {
	s := &session{p: p, l: l, log: log, client: client, cr: cr, up: up, ur: ur,
		cw: bufio.NewWriterSize(client, 32<<10), clientAddr: client.RemoteAddr().String(),
		prepared: map[int32]*prepared{}, reqs: make(chan request), respDone: make(chan response, 1),
		stop: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.packetSize.Store(tds.DefaultPacketSize)
	return s
}

// run serves the session until either side ends it.
func (s *session) Run() {
	var wg sync.WaitGroup
	wg.Add(2)
	// A panic in the reader or the relay (a goroutine of their own, which
	// drain.Serve's recover does not cover) would end the whole process: it
	// ends this session only.
	guard := func(name string, f func()) {
		defer wg.Done()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("mssql "+name+" failed; connection closed", "panic", r, "stack", string(debug.Stack()))
				s.close()
			}
		}()
		f()
	}
	go guard("reader", s.readLoop)
	go guard("relay", s.relayLoop)
	err := s.decideLoop()
	var pe *protocolError
	switch {
	case errors.As(err, &pe):
		s.protocolFailure(err)
	case errors.Is(err, app.ErrClientGone):
		s.log.Info("mssql client hung up while its statement waited for approval; nothing of it was forwarded")
	case err != nil && !isClosed(err):
		s.log.Info("mssql connection ended", "error", err)
	}
	s.close()
	wg.Wait()
}

// protocolFailure ends the session after a message that breaks MS-TDS:
// ERROR 4002 to the client, a log line, then the connection closes.
func (s *session) protocolFailure(err error) {
	s.log.Warn("mssql client broke the protocol; connection closed", "error", err)
	s.client.SetWriteDeadline(time.Now().Add(5 * time.Second))
	s.writeClient(errorReply(errProtocol.with("hoop sidecar: "+err.Error()), tds.TokenDone, false))
	s.close()
}

// close ends the session: both connections close, every goroutine returns.
func (s *session) close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.wait.Close()
		s.cond.Broadcast()
		s.mu.Unlock()
		close(s.stop)
		s.cancel()
		s.client.Close()
		s.up.Close()
	})
}

// decideLoop takes the reader's requests one at a time.
func (s *session) decideLoop() error {
	for {
		var r request
		select {
		case r = <-s.reqs:
		case <-s.stop:
			return nil
		}
		err := s.request(r)
		r.held.Release()
		if err != nil {
			return err
		}
		if !s.idle() {
			return nil
		}
	}
}

// request decides and answers one client message.
func (s *session) request(r request) error {
	if r.refused != nil {
		s.log.Warn("mssql request refused: the held-payload budget is full", "budget", r.refused.Size)
		// Nothing of it ran: inside a transaction that dooms it, as a denial does.
		return s.refuse(errNoMemory.with(r.refused.Error()), tds.TokenDone)
	}
	if bits := r.msg.Status & (tds.StatusResetConnection | tds.StatusResetConnectionSkipTran); bits != 0 {
		s.reset(r.msg.Status&tds.StatusResetConnection != 0)
		s.resetPending |= bits
	}
	return s.dispatch(r)
}

// dispatch decides and answers one client message by its type.
func (s *session) dispatch(r request) error {
	if s.doomed && s.txDesc() != s.doomedTx {
		s.doomed = false // the transaction ended (ROLLBACK, or the server's own)
	}
	switch r.msg.Type {
	case tds.PacketSQLBatch:
		return s.batch(r.msg)
	case tds.PacketRPC:
		return s.rpc(r.msg)
	case tds.PacketTransaction:
		return s.transaction(r.msg)
	case tds.PacketBulkLoad:
		// The rows of an INSERT BULK the listener decided as a SQLBatch.
		_, err := s.exchange(r.msg, exchangeOpts{})
		return err
	}
	return protoErr("message type %d is not a request this listener relays after login", r.msg.Type)
}

// reset applies a request's RESETCONNECTION bit (MS-TDS 2.2.3.1.2: a
// pooled connection reused by the driver): the server drops the session's
// prepared handles and goes back to the login's database; without
// SKIPTRAN it also rolls back an open transaction.
func (s *session) reset(tran bool) {
	s.forgetAll()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.database = s.loginDB
	if tran {
		s.tx, s.doomed = 0, false
	}
}

// idle ends a request: an Attention the listener has not answered yet gets
// its DONE(ATTN) now, the reader may go on, and a draining session with no
// transaction open closes. It returns false when the session must end.
func (s *session) idle() bool {
	s.mu.Lock()
	attn := s.attnCancel
	s.attnCancel = false
	s.state = stIdle
	s.cond.Broadcast()
	s.mu.Unlock()
	if attn {
		if s.writeClient(attnReply()) != nil {
			return false
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining && s.tx == 0 {
		s.terminateLocked()
	}
	return !s.closed
}

// inTx reports whether the upstream said a transaction is open.
func (s *session) inTx() bool { return s.txDesc() != 0 }

// txDesc returns the open transaction's descriptor (0: none).
func (s *session) txDesc() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tx
}

// currentDB returns the session's current database.
func (s *session) currentDB() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.database
}

// writeClient writes one whole reply message (the listener's own answer)
// to the client, split to the negotiated packet size.
func (s *session) writeClient(data []byte) error {
	s.cwMu.Lock()
	defer s.cwMu.Unlock()
	if _, err := s.cw.Write(appendMessage(nil, tds.PacketReply, 0, s.spid, data, int(s.packetSize.Load()))); err != nil {
		return err
	}
	return s.cw.Flush()
}

// exchangeOpts says how the relay treats the answer to a forwarded request.
type exchangeOpts struct {
	discard    bool // the listener's own request: the answer is not relayed
	wantHandle bool // read the prepared handle it returns
	// onEnd, when set, sees the answer before its last packet reaches the
	// client (settling an approval claimed with spend_approval_on: accepted).
	onEnd func(response)
	// onSent, when set, is called once the request was written to the
	// upstream (app.Ticket.Sent).
	onSent func()
	// mask, when set, masks the answer's results (mask.go).
	mask *masking.Plan
}

// errCanceled is a request the client's Attention cancelled before it was
// forwarded; its DONE(ATTN) is sent when the request ends (idle).
var errCanceled = errors.New("cancelled by the client's Attention before it was forwarded")

// exchange forwards m to the upstream and waits for the end of its answer,
// which the relay copies to the client (unless o.discard). A request the
// client already cancelled (Attention) is not forwarded: the response says
// attn.
func (s *session) exchange(m tds.Message, o exchangeOpts) (response, error) {
	s.uwMu.Lock()
	s.mu.Lock()
	if s.attnCancel && !o.discard {
		s.mu.Unlock()
		s.uwMu.Unlock()
		if o.onEnd != nil {
			o.onEnd(response{attn: true, unsent: true})
		}
		return response{attn: true, unsent: true}, nil
	}
	s.state, s.discard, s.wantHandle, s.onEnd, s.mask = stForwarded, o.discard, o.wantHandle, o.onEnd, nil
	if o.mask != nil && !o.discard {
		s.mask = newMasker(o.mask)
	}
	s.mu.Unlock()
	// A request that carried RESETCONNECTION but was not forwarded (denied,
	// refused, cancelled) left the listener in the login's database with no
	// transaction (reset) and the upstream where it was: the next message
	// forwarded carries the bits, so the upstream resets before it runs
	// (else a statement approved in the login's database would run in the
	// one a USE left, and a COMMIT would find the transaction the listener
	// forgot, doomed, still open). MS-TDS 2.2.3.1.2: SQLBatch, RPC and
	// transaction manager requests only.
	if s.resetPending != 0 && (m.Type == tds.PacketSQLBatch || m.Type == tds.PacketRPC || m.Type == tds.PacketTransaction) {
		m.Status |= s.resetPending
		if m.Status&tds.StatusResetConnection != 0 {
			m.Status &^= tds.StatusResetConnectionSkipTran
		}
		s.resetPending = 0
	}
	_, err := s.up.Write(appendMessage(nil, m.Type, m.Status, m.SPID, m.Data, int(s.packetSize.Load())))
	s.uwMu.Unlock()
	if err != nil {
		s.abandon()
		return response{aborted: true}, err
	}
	if o.onSent != nil {
		o.onSent()
	}
	select {
	case r := <-s.respDone:
		if r.lost && !o.discard {
			return r, s.relearn()
		}
		return r, nil
	case <-s.stop:
		s.abandon()
		return response{aborted: true}, net.ErrClosed
	}
}

// abandon calls the forwarded request's onEnd, if the relay has not, for an
// answer that will not come (the session ended).
func (s *session) abandon() {
	s.mu.Lock()
	onEnd := s.onEnd
	s.onEnd = nil
	s.mu.Unlock()
	if onEnd != nil {
		onEnd(response{aborted: true})
	}
}

// relearnText asks the upstream for the session's current database and
// transaction count, in an INFO message of state relearnState: "count name".
const (
	relearnText  = "DECLARE @hoop_t int = @@TRANCOUNT, @hoop_d nvarchar(128) = DB_NAME(); RAISERROR(N'%d %s', 0, 217, @hoop_t, @hoop_d)"
	relearnState = 217
)

// relearn asks the upstream where the session is after an answer the relay
// could not read to its end (a CLR type column, a value over maxCarry): an
// ENVCHANGE after the unreadable token went to the client unread, and the
// listener would decide the next statements in the database it believes
// current (an approval filed for one database then running in another).
// It sends relearnText (its answer is not relayed) and takes the current
// database from it, and the end of the transaction when none is open.
func (s *session) relearn() error {
	b := &tds.SQLBatch{Headers: tds.TxHeaders(s.txDesc(), 1), Text: relearnText}
	resp, err := s.exchange(tds.Message{Type: tds.PacketSQLBatch, Data: b.Encode()}, exchangeOpts{discard: true})
	if err != nil {
		return err
	}
	n, db, ok := strings.Cut(resp.state, " ")
	if !ok {
		return fmt.Errorf("the upstream did not say its current database after an answer the listener could not read")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.database = db
	switch {
	case n == "0":
		s.tx, s.txUnknown = 0, false
	case s.tx == 0: // its descriptor comes with the client's next request (learnTx)
		s.txUnknown = true
	}
	return nil
}

// learnTx takes the descriptor of a transaction the relay could not read
// from a request's ALL_HEADERS: the client read the ENVCHANGE that the
// relay could not, and a denial in that transaction must doom it.
func (s *session) learnTx(h tds.AllHeaders) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, _, ok := h.TransactionDescriptor(); ok && d != 0 && s.txUnknown && s.tx == 0 {
		s.tx, s.txUnknown = d, false
	}
}
