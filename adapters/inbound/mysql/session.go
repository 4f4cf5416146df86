package mysql

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/hangup"
)

// session is one client connection and its upstream connection, after
// login. MySQL is strictly request/answer: one goroutine reads a command,
// decides it, forwards it and relays the upstream's answer before it reads
// the next.
type session struct {
	p   *Protocol
	l   *app.Listener
	log *slog.Logger

	client     net.Conn
	clientAddr string // client.RemoteAddr(), formatted once for the gate
	cr         *bufio.Reader
	cw         *bufio.Writer
	up         net.Conn
	ur         *bufio.Reader
	uw         *bufio.Writer
	head       []byte // the relay's reusable packet head
	// mask rewrites the rows of the answer being relayed; nil when no
	// masking rule applies to its statement (maskrelay.go).
	mask *rowMasker

	upstreamAddr           string
	clientTLS, upstreamTLS bool
	caps                   uint32 // the flags client and upstream agreed on
	threadID               uint32 // the upstream's connection id, which the client sees too
	nonce                  []byte // the upstream's handshake nonce (COM_CHANGE_USER scrambles with it)

	user       string
	database   string // the current database: handshake, COM_INIT_DB, USE
	returnMode bool
	status     uint16 // the server status flags of the upstream's last OK/EOF
	// reading: the client character set and sql_mode the upstream reads
	// texts in (charset.go).
	reading analyzer.Mode
	// txFailed: a statement was denied inside a transaction; the upstream's
	// transaction was rolled back and statements are refused until ROLLBACK
	// or COMMIT (query.go).
	txFailed bool
	// contd: how many continuation packets the command being answered came
	// in after its first (a command of 2^24-1 bytes or more); the
	// listener's own answer follows the last of them (reply).
	contd    byte
	stmts    map[uint32]*prepared
	lastStmt uint32
	// sqlPrepared: the analysis of each SQL-level PREPARE name (lower case).
	sqlPrepared map[string]domain.Analysis

	// Shared with the drain (internal/drain) and other sessions' KILL QUERY, under mu.
	mu          sync.Mutex
	busy        bool
	idleInTx    bool // a transaction was open when the session last went idle
	closed      bool
	drain.Guard // drain.go: the listener stopped; close once idle

	// The wait of a held statement, ended by a KILL QUERY (threads.go) or
	// the end of the connection (wait.go); holdSpec and the identity values
	// are the reader's.
	wait       app.WaitHandle
	holdSpec   *app.Hold
	idValues   map[string][]string
	idValuesDB string
}

func newSession(p *Protocol, l *app.Listener, log *slog.Logger, client, up net.Conn) *session {
	s := &session{p: p, l: l, log: log, stmts: map[uint32]*prepared{}, sqlPrepared: map[string]domain.Analysis{}}
	s.Guard.Init(&s.mu, s.idleLocked, s.terminateLocked)
	s.setClient(client, bufio.NewReaderSize(client, 32<<10))
	s.setUpstream(up)
	return s
}

// deprecateEOF reports whether result sets end with OK instead of EOF.
func (s *session) deprecateEOF() bool { return s.caps&gm.CLIENT_DEPRECATE_EOF != 0 }

// inTransaction reports whether the upstream said a transaction is open.
func (s *session) inTransaction() bool { return s.status&gm.SERVER_STATUS_IN_TRANS != 0 }

// Run serves the session as one of the listener's threads (KILL QUERY finds
// it, threads.go) until either side ends it, then closes both connections
// (drain.Conn).
func (s *session) Run() {
	defer s.up.Close()
	defer s.client.Close()
	s.p.threads.add(s)
	defer s.p.threads.remove(s)
	s.run()
}

// run serves commands until either side ends the session. A command that
// breaks the protocol ends it with an ERR (ER_MALFORMED_PACKET) and a log
// line.
func (s *session) run() {
	err := s.serve()
	var pe *wire.Error
	switch {
	case errors.As(err, &pe):
		s.log.Warn("mysql client broke the protocol; connection closed", "error", err)
		wire.Write(s.cw, 1, errMalformed.With("hoop sidecar: "+pe.Msg).Encode())
		s.cw.Flush()
	case err != nil && !wire.IsClosed(err) && !errors.Is(err, errQuit):
		s.log.Info("mysql connection ended", "error", err)
	}
}

// errQuit ends a session after COM_QUIT.
var errQuit = errors.New("client sent COM_QUIT")

func (s *session) serve() error {
	for {
		if !s.idle() {
			return nil
		}
		stopWatch := s.watchUpstream()
		p, seq, held, err := s.readCommand()
		stopWatch()
		var refused errRefusedAnswered
		if errors.As(err, &refused) {
			if refused.err != nil {
				return refused.err
			}
			continue
		}
		if err != nil {
			return err
		}
		err = s.command(p, seq)
		held.Release()
		if err != nil {
			return err
		}
		if err := s.cw.Flush(); err != nil {
			return err
		}
	}
}

// watchUpstream watches the upstream connection while the session waits
// for the client's next command (internal/hangup's watch, on the
// upstream): when the server ends an idle connection (wait_timeout, KILL,
// a restart) the client connection is closed too, after any bytes the
// server sent first (MySQL 8's ERR 4031), so the client's driver sees the
// close before its next command as it would directly (go-sql-driver's
// connection check then takes a new connection; issue 31 point 4). stop
// returns once the upstream reader is the session's again.
func (s *session) watchUpstream() (stop func()) {
	return hangup.Watch(s.ur, s.up.SetReadDeadline, func(err error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed || s.busy {
			return // closed by the drain, or a command came: the session sees the close itself
		}
		s.closed = true
		if n := s.ur.Buffered(); n > 0 {
			b, _ := s.ur.Peek(n)
			s.client.Write(b)
		}
		s.client.Close()
		s.up.Close()
		s.log.Info("mysql upstream closed an idle connection; client connection closed", "error", err)
	})
}

// command decides and runs one command packet p (sequence id seq).
func (s *session) command(p []byte, seq byte) error {
	switch p[0] {
	case gm.COM_QUIT:
		s.forward(p, seq)
		return errQuit
	case gm.COM_QUERY:
		return s.query(p, seq)
	case gm.COM_INIT_DB:
		if err := s.forward(p, seq); err != nil {
			return err
		}
		a, err := s.relay(respOne, s.cw)
		if err == nil && !a.failed {
			s.database = string(p[1:])
		}
		return err
	case gm.COM_PING, gm.COM_STATISTICS, gm.COM_SET_OPTION, gm.COM_DEBUG:
		return s.passOne(p, seq, respOne)
	case gm.COM_RESET_CONNECTION:
		s.stmts, s.sqlPrepared, s.txFailed = map[uint32]*prepared{}, map[string]domain.Analysis{}, false
		if err := s.passOne(p, seq, respOne); err != nil {
			return err
		}
		return s.refreshReading() // the session's character set and sql_mode are reset
	case gm.COM_FIELD_LIST:
		return s.passOne(p, seq, respFields)
	case gm.COM_STMT_FETCH:
		return s.fetch(p, seq)
	case gm.COM_STMT_PREPARE:
		return s.prepare(p, seq)
	case gm.COM_STMT_EXECUTE:
		return s.executeAndFollow(p, seq)
	case gm.COM_STMT_SEND_LONG_DATA:
		return s.longData(p)
	case gm.COM_STMT_CLOSE:
		return s.closeStmt(p, seq)
	case gm.COM_STMT_RESET:
		return s.resetStmt(p, seq)
	case gm.COM_CHANGE_USER:
		return s.changeUser(p, seq)
	case gm.COM_PROCESS_KILL:
		return s.processKill(p, seq)
	}
	s.log.Info("mysql command refused: the listener does not relay it", "command", p[0])
	return s.reply(seq, errUnknownCommand.With("hoop sidecar: this command is not relayed by the listener"))
}

// passOne forwards p and relays its answer of kind k.
func (s *session) passOne(p []byte, seq byte, k respKind) error {
	if err := s.forward(p, seq); err != nil {
		return err
	}
	_, err := s.relay(k, s.cw)
	return err
}

// forward sends one command packet to the upstream.
func (s *session) forward(p []byte, seq byte) error {
	if _, err := wire.Write(s.uw, seq, p); err != nil {
		return err
	}
	return s.uw.Flush()
}

// reply answers the client's command (sequence id seq of its first packet)
// with e, numbered after the command's last packet (MySQL Client/Server
// Protocol, "Sequence ID").
func (s *session) reply(seq byte, e wire.ERR) error {
	if _, err := wire.Write(s.cw, seq+1+s.contd, e.Encode()); err != nil {
		return err
	}
	return s.cw.Flush()
}

// rules returns the listener's settings for one command: its analysis and
// its decision use the same rule set even when a reload lands in between.
func (s *session) rules() *app.ListenerSettings { return s.l.Settings() }

// discard returns a writer for answers the client must not see (the
// listener's own ROLLBACK).
func discard() *bufio.Writer { return bufio.NewWriterSize(io.Discard, 16) }
