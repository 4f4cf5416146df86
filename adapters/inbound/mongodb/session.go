package mongodb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/command"
	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// session is one client connection and its own upstream connection. The
// client's requests are read and decided here, one at a time, in order;
// relay.go copies the upstream's replies back. Drivers send a request and
// wait for its reply (except moreToCome requests, which get none), so a
// denial written here takes the place the upstream's reply would have had.
type session struct {
	l          *app.Listener
	log        *slog.Logger
	client     net.Conn
	clientAddr string // client.RemoteAddr(), formatted once for the gate
	cr         *bufio.Reader
	up         net.Conn
	x509       *x509Auth // the client's certificate when the listener verifies them (tls.client_ca_file), else nil
	cursors    *cursors  // the Protocol's: what masks each cursor a masked statement opened

	// wmu serialises writes to the client: the relay's replies and this
	// side's denials.
	wmu sync.Mutex

	maxSize    atomic.Int32 // the upstream's maxMessageSizeBytes, 0 until its hello reply
	returnMode atomic.Bool  // hoop-approval=return in the first hello's appName
	nextID     atomic.Int32 // requestIDs of the listener's own messages
	tickets    app.Tickets  // approvals claimed on this connection (spend_approval_on: accepted)

	mu          sync.Mutex
	user        string // the authenticated user (SCRAM n=, PLAIN authcid, X.509 user)
	pendingUser string // the user an authentication in progress claims
	helloSeen   bool
	pending     map[int32]*pending // requests whose reply the relay inspects, by requestID
	noReply     [32]int32          // requestIDs of the last moreToCome requests forwarded (relay drops answers to them)
	noReplySet  [32]bool           // which noReply slots hold an id (0 is a valid requestID)
	noReplyNext int
	outstanding map[int32]int // requestIDs forwarded whose reply has not begun, with how many
	busy        bool          // a client message is being decided
	owed        bool          // a forwarded request's reply has not begun
	forwarded   bool          // the busy message was sent on, its reply asked for
	draining    bool
	terminated  bool

	// The wait of a held command, ended by a hang-up or the end of the
	// connection (wait.go); holdSpec is the reader's.
	wait     app.WaitHandle
	holdSpec *app.Hold
}

// pending is what the relay does with the reply to one forwarded request.
type pending struct {
	hello  bool          // read maxMessageSizeBytes (and speculative authentication)
	auth   *command.Auth // confirm the user on success
	user   string        // the user the conversation claimed when this step was sent
	ticket *app.Ticket   // spend_approval_on: accepted: settle on the reply
	own    chan []byte   // the listener's own request (ask): its reply goes here, never to the client
	mask   *maskJob      // mask the reply's result documents (maskrelay.go)
}

// errMalformed is a message that breaks the wire protocol: the connection
// is closed with a log line (wire.MalformedError, wire.SizeError).
type errMalformed struct{ err error }

func (e errMalformed) Error() string { return e.err.Error() }
func (e errMalformed) Unwrap() error { return e.err }

// max is the largest message accepted in either direction: the upstream's
// maxMessageSizeBytes once its hello reply said it, before that
// wire.DefaultMaxMessageSize.
func (s *session) max() int {
	if n := s.maxSize.Load(); n > 0 {
		return int(n)
	}
	return wire.DefaultMaxMessageSize
}

// Run serves the connection until the client or the upstream ends it.
func (s *session) Run() {
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		s.relay()
	}()
	err := s.serve()
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
	case errors.As(err, new(errMalformed)):
		s.log.Warn("mongodb client sent a malformed message; connection closed", "error", err)
	case errors.Is(err, errClientGone):
		s.log.Info("mongodb client hung up while its command waited for approval; connection closed")
	default:
		s.log.Info("mongodb connection ended", "error", err)
	}
	// A closed client connection closes the upstream connection, which
	// ends what the upstream runs for it (docs/mongodb-listener.md,
	// "Cancellation").
	s.up.Close()
	s.client.Close()
	<-relayDone
	// A reply that never came (the upstream lost mid-answer, the client
	// gone) leaves its command's outcome unknown: spend (app.Tickets).
	s.tickets.SpendAll()
}

// serve reads and decides the client's messages one at a time.
func (s *session) serve() error {
	var buf []byte
	for {
		raw, res, err := s.readClient(&buf)
		if err != nil {
			return err
		}
		s.setBusy(true)
		err = s.handle(raw)
		if res != nil {
			res.Release()
		}
		s.setBusy(false)
		if err != nil {
			return err
		}
	}
}

// handle decodes one client message (an OP_COMPRESSED is decompressed to
// be read; its own bytes are what is forwarded), analyses the command and
// decides it.
func (s *session) handle(raw []byte) error {
	hdr, err := wire.ParseHeader(raw)
	if err != nil {
		return errMalformed{err}
	}
	orig := raw
	if hdr.OpCode == wire.OpCompressed {
		if orig, err = wire.Decompress(raw, s.max()); err != nil {
			return errMalformed{err}
		}
	}
	oh, err := wire.ParseHeader(orig)
	if err != nil {
		return errMalformed{err}
	}
	var cmd *command.Command
	var moreToCome, legacy bool
	switch oh.OpCode {
	case wire.OpMsg:
		m, err := wire.DecodeMsg(orig)
		if err != nil {
			return errMalformed{err}
		}
		moreToCome = m.MoreToCome()
		cmd, err = command.FromMsg(m)
		if err != nil {
			return s.refuse(hdr, false, moreToCome, err)
		}
	case wire.OpQuery:
		legacy = true
		q, err := wire.DecodeQuery(orig)
		if err != nil {
			return errMalformed{err}
		}
		if !q.IsCommand() {
			return s.refuse(hdr, true, false, fmt.Errorf("OP_QUERY on %q: this listener reads OP_QUERY only for commands (<db>.$cmd), as servers since 5.1 do", q.FullCollectionName))
		}
		cmd, err = command.FromQuery(q)
		if err != nil {
			return s.refuse(hdr, true, false, err)
		}
	default:
		return errMalformed{fmt.Errorf("opCode %d is not read by this listener (only OP_MSG, OP_QUERY commands and OP_COMPRESSED)", oh.OpCode)}
	}
	return s.decide(raw, hdr, cmd, legacy, moreToCome)
}

// refuse answers a request the server would refuse before running it
// (BadValue), unless it asked for no reply.
func (s *session) refuse(hdr wire.Header, legacy, moreToCome bool, err error) error {
	s.log.Info("mongodb command refused before analysis", "error", err)
	if moreToCome {
		return nil
	}
	return s.reply(hdr, legacy, errorDoc(CodeBadCommand, err.Error()))
}

// decide runs one command through the gate and forwards it, or answers
// with the denial. The handshake (hello), authentication steps and cursor
// continuations (getMore, killCursors) are not statements: they are
// forwarded without asking the gate.
func (s *session) decide(raw []byte, hdr wire.Header, cmd *command.Command, legacy, moreToCome bool) error {
	var p *pending // what the relay must read of the reply; made only when needed
	switch {
	case cmd.Hello:
		s.mu.Lock()
		if !s.helloSeen {
			s.helloSeen = true
			s.returnMode.Store(domain.WantsReturnMode(cmd.AppName))
		}
		s.mu.Unlock()
		p = &pending{hello: true}
		if s.x509 != nil && isX509(cmd.Auth) {
			// The listener answers X.509 itself (x509.go): the driver
			// authenticates with the command once the hello's answer has
			// no speculativeAuthenticate.
			stripped, err := withoutSpeculative(raw, s.max())
			if err != nil {
				return errMalformed{err}
			}
			return s.forward(stripped, hdr, p, moreToCome)
		}
		if cmd.Auth != nil {
			p.user = s.noteAuth(cmd.Auth)
			p.auth = cmd.Auth
		}
		return s.forward(raw, hdr, p, moreToCome)
	case s.x509 != nil && isX509(cmd.Auth) && strings.EqualFold(cmd.Auth.Command, "authenticate"):
		reply, lost := s.loginX509(cmd.Auth)
		if !moreToCome {
			if err := s.reply(hdr, legacy, reply); err != nil {
				return err
			}
		}
		return lost // the upstream's login state is unknown: end the connection
	case s.x509 != nil && cmd.Auth != nil && s.switchesFromX509(cmd.Auth):
		if moreToCome {
			return nil
		}
		return s.reply(hdr, legacy, authFailed("Each client connection may only be authenticated once. Previously authenticated as: "+s.identity()))
	case cmd.Auth != nil:
		p = &pending{user: s.noteAuth(cmd.Auth), auth: cmd.Auth}
		return s.forward(raw, hdr, p, moreToCome)
	case cmd.Continuation:
		if job := s.continuation(cmd); job != nil {
			p = &pending{mask: job}
		}
		return s.forward(raw, hdr, p, moreToCome)
	}
	set := s.l.Settings()
	out, st := s.check(set, cmd)
	if out.ClientGone {
		return errClientGone
	}
	if out.Forward {
		var mask *maskJob
		if set.Masking != nil && !moreToCome {
			mask = maskFor(set, st, cmd)
		}
		if out.Ticket != nil {
			// Spent unless a proof gives it back (spend.go), at the latest
			// when the connection ends (run).
			s.tickets.Add(out.Ticket)
			if moreToCome {
				// No reply will come (w:0): the upstream took it.
				err := s.forward(raw, hdr, nil, true)
				if err != nil {
					out.Ticket.GiveBack(domain.NotSent(err.Error()))
				}
				out.Ticket.Spend()
				return err
			}
			if s.isOutstanding(hdr.RequestID) {
				// The answer to the earlier request of this id would
				// settle this approval: refuse; nothing ran, give it back.
				out.Ticket.GiveBack(domain.NotSent(fmt.Sprintf("requestID %d still awaits an earlier answer", hdr.RequestID)))
				return s.reply(hdr, legacy, errorDoc(CodeBadCommand, fmt.Sprintf(
					"requestID %d is still awaiting the answer to an earlier request; resend this approved command with a new requestID", hdr.RequestID)))
			}
			err := s.forward(raw, hdr, &pending{ticket: out.Ticket, mask: mask}, false)
			if err != nil {
				out.Ticket.GiveBack(domain.NotSent(err.Error()))
			} else {
				out.Ticket.Sent()
			}
			return err
		}
		if mask != nil {
			p = &pending{mask: mask}
		}
		return s.forward(raw, hdr, p, moreToCome)
	}
	if cmd.InTransaction {
		s.abortTransaction(cmd)
	}
	s.log.Info("mongodb command denied", "command", cmd.Name, "approval_id", out.Denial.ApprovalID)
	if moreToCome {
		return nil // the client asked for no reply; the denial is in the audit trail
	}
	return s.reply(hdr, legacy, denialDoc(out.Denial))
}

// forward sends raw, the client's message as read, to the upstream; p (if
// any) tells the relay what to do with its reply.
func (s *session) forward(raw []byte, hdr wire.Header, p *pending, moreToCome bool) error {
	s.mu.Lock()
	if p != nil && !moreToCome {
		s.pending[hdr.RequestID] = p
	}
	if !moreToCome {
		s.owed, s.forwarded = true, true
		if s.outstanding == nil {
			s.outstanding = map[int32]int{}
		}
		s.outstanding[hdr.RequestID]++
		// A client may reuse a requestID (some send 0 every time): an
		// answer to this id is this request's from now on, not one to an
		// earlier moreToCome request of the same id (servers send none).
		for i, id := range s.noReply {
			if id == hdr.RequestID {
				s.noReplySet[i] = false
			}
		}
	} else {
		s.noReply[s.noReplyNext%len(s.noReply)] = hdr.RequestID
		s.noReplySet[s.noReplyNext%len(s.noReply)] = true
		s.noReplyNext++
	}
	s.mu.Unlock()
	_, err := s.up.Write(raw)
	return err
}

// reply writes the listener's own answer to the request hdr: an OP_MSG, or
// an OP_REPLY for a legacy OP_QUERY, with responseTo the request's id.
func (s *session) reply(hdr wire.Header, legacy bool, doc bsoncore.Document) error {
	id := s.nextID.Add(1)
	var msg []byte
	if legacy {
		msg = wire.ReplyQuery(hdr, id, doc)
	} else {
		msg = wire.ReplyMsg(hdr, id, doc)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.client.Write(msg)
	return err
}

// isOutstanding reports whether a request of this id was forwarded and its
// reply has not begun.
func (s *session) isOutstanding(id int32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outstanding[id] > 0
}

// noteAuth records the user an authentication step claims and returns
// the user of the conversation the step belongs to (a saslContinue claims
// none: its saslStart's). The relay makes that user, bound to the step, the
// session's identity once the upstream says the step succeeded, so a
// later, pipelined saslStart cannot lend its claim to an earlier login.
func (s *session) noteAuth(a *command.Auth) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.User != "" {
		s.pendingUser = a.User
	}
	return s.pendingUser
}

// identity is the authenticated user ("" before login).
func (s *session) identity() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.user
}

func (s *session) setBusy(b bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy, s.forwarded = b, false
	if !b {
		s.closeIfIdleLocked()
	}
}
