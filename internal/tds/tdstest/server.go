package tdstest

import (
	"crypto/tls"
	"errors"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstls"
)

// Server is the in-process TDS server. Set the handlers before Start.
type Server struct {
	// Database is the database name LOGINACK's ENVCHANGE reports when the
	// client's LOGIN7 names none (default "master").
	Database string
	// OnBatch returns the token stream answering a SQLBatch (default: DONE).
	// A nil answer sends nothing: the request stays running until the
	// client's Attention, which the server answers with DONE(ATTN).
	OnBatch func(*tds.SQLBatch) []byte
	// OnRPC returns the token stream answering an RPC (default: DONEPROC).
	OnRPC func(*tds.RPC) []byte
	// Encryption is the server's TLS setting (encryption.go): the zero
	// value tdstls.NotSupported answers ENCRYPT_NOT_SUP and closes on a
	// client that asks for encryption; Off, On, Required and Strict run the
	// MS-TDS 2.2.6.5 negotiation with TLS.
	Encryption tdstls.Setting
	// TLS holds the certificate for every setting but NotSupported; nil
	// means a self-signed certificate made at Start.
	TLS *tls.Config
	// Session, when set, makes one Session per connection that answers
	// LOGIN7, SQLBatch, RPC, Transaction Manager requests and Attention
	// instead of the handlers above (session.go; Mini is one).
	Session func() Session
	// DataClassification, when not 0, is the DATACLASSIFICATION version
	// the login's FEATUREEXTACK acknowledges to a client that asks for the
	// feature (tds.DataClassV1, tds.DataClassV2).
	DataClassification byte

	noRecord bool // Mini.NoLog
	mu       sync.Mutex
	received []tds.Message
	logins   []*tds.Login7
	outcomes []tdstls.Outcome
	enc      *tdstls.Server
	open     map[Session]net.Conn // each Session's connection, for Mini's KILL
	ln       net.Listener
	done     chan struct{}
	wg       sync.WaitGroup
}

// Start listens on 127.0.0.1:0 and serves until the test ends; it returns
// the address.
func (s *Server) Start(t testing.TB) string {
	t.Helper()
	addr, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatalf("tdstest: listen: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return addr
}

// Received returns a copy of every message received so far, in order,
// across connections.
func (s *Server) Received() []tds.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tds.Message(nil), s.received...)
}

// Logins returns the decoded LOGIN7 messages received so far.
func (s *Server) Logins() []*tds.Login7 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*tds.Login7(nil), s.logins...)
}

func (s *Server) serve(raw net.Conn) {
	connDone := make(chan struct{})
	defer close(connDone)
	defer raw.Close()
	go func() {
		select {
		case <-s.done:
			raw.Close()
		case <-connDone:
		}
	}()
	c, strict, err := s.enc.Begin(raw)
	if err != nil {
		return
	}
	mr := &tds.MessageReader{R: c, PacketSize: tds.MaxPacketSize, MaxMessage: 16 << 20}
	packetSize := tds.DefaultPacketSize
	var sess Session
	if s.Session != nil {
		sess = s.Session()
		defer sess.Close()
		s.track(sess, raw)
		defer s.track(sess, nil)
	}
	var running time.Time // a Session's request left running until then (or Attention)
	for {
		if !running.IsZero() {
			c.SetReadDeadline(running)
		}
		m, err := mr.ReadMessage()
		if !running.IsZero() {
			c.SetReadDeadline(time.Time{})
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				running = time.Time{}
				sess.Elapsed(&Reply{w: c, size: packetSize})
				continue
			}
		}
		if err != nil {
			return
		}
		if !s.noRecord {
			s.mu.Lock()
			s.received = append(s.received, m)
			s.mu.Unlock()
		}
		if m.Ignore {
			continue
		}
		var reply []byte
		switch m.Type {
		case tds.PacketPrelogin:
			p, err := tds.DecodePrelogin(m.Data)
			if err != nil {
				return
			}
			// A client that asked for encryption the setting cannot give
			// is closed on, never answered ENCRYPT_NOT_SUP.
			enc, outcome, err := s.enc.Answer(p, strict)
			if err != nil {
				return
			}
			ans := &tds.Prelogin{}
			ans.Set(tds.PreloginVersion, tds.VersionData(0x10000FA0, 0))
			ans.Set(tds.PreloginEncryption, []byte{enc})
			ans.Set(tds.PreloginInstOpt, []byte{0})
			ans.Set(tds.PreloginThreadID, nil)
			ans.Set(tds.PreloginMARS, []byte{0})
			if err := tds.WriteMessage(c, tds.PacketReply, 0, 0, ans.Encode(), packetSize); err != nil {
				return
			}
			if c, err = s.enc.Upgrade(c, outcome); err != nil {
				return
			}
			mr.R = c
			s.mu.Lock()
			s.outcomes = append(s.outcomes, outcome)
			s.mu.Unlock()
			continue
		case tds.PacketLogin7:
			l, err := tds.DecodeLogin7(m.Data)
			if err != nil {
				return
			}
			s.mu.Lock()
			s.logins = append(s.logins, l)
			s.mu.Unlock()
			if l.PacketSize >= tds.MinPacketSize && l.PacketSize <= tds.MaxPacketSize {
				packetSize = int(l.PacketSize)
			}
			if sess != nil {
				var ok bool
				if reply, ok = sess.Login(l, packetSize); !ok {
					tds.WriteMessage(c, tds.PacketReply, 0, 0, reply, packetSize)
					return
				}
				break
			}
			reply = s.loginReply(l, packetSize)
		case tds.PacketSQLBatch:
			b, err := tds.DecodeSQLBatch(m.Data)
			if err != nil {
				return
			}
			if sess != nil {
				running = s.request(sess.Batch(b, s.reply(sess, m, c, packetSize)))
				continue
			}
			if s.OnBatch != nil {
				if reply = s.OnBatch(b); reply == nil {
					continue
				}
			} else {
				reply = (&tds.Done{}).Append(nil)
			}
		case tds.PacketRPC:
			r, err := tds.DecodeRPC(m.Data)
			if err != nil {
				reply = Error(50000, 16, err.Error())
				reply = (&tds.Done{Token: tds.TokenDoneProc, Status: tds.DoneError}).Append(reply)
				break
			}
			if sess != nil {
				running = s.request(sess.RPC(r, s.reply(sess, m, c, packetSize)))
				continue
			}
			if s.OnRPC != nil {
				reply = s.OnRPC(r)
			} else {
				reply = (&tds.Done{Token: tds.TokenDoneProc}).Append(nil)
			}
		case tds.PacketTransaction:
			if sess == nil {
				return
			}
			sess.Transaction(m.Data, s.reply(sess, m, c, packetSize))
			continue
		case tds.PacketAttention:
			if sess != nil {
				sess.Attention(!running.IsZero())
				running = time.Time{}
			}
			reply = (&tds.Done{Status: tds.DoneAttn}).Append(nil)
		default:
			return
		}
		if err := tds.WriteMessage(c, tds.PacketReply, 0, 0, reply, packetSize); err != nil {
			return
		}
	}
}

// track records sess's connection (nil: it ended).
func (s *Server) track(sess Session, c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c == nil {
		delete(s.open, sess)
		return
	}
	if s.open == nil {
		s.open = map[Session]net.Conn{}
	}
	s.open[sess] = c
}

// closeSession closes sess's connection, as SQL Server's KILL ends a
// session: nothing is sent to its client. It reports whether sess had one.
func (s *Server) closeSession(sess Session) bool {
	s.mu.Lock()
	c, ok := s.open[sess]
	s.mu.Unlock()
	if ok {
		c.Close()
	}
	return ok
}

func (s *Server) loginReply(l *tds.Login7, packetSize int) []byte {
	db := l.Database
	if db == "" {
		db = s.Database
	}
	if db == "" {
		db = "master"
	}
	out := tds.EnvString(tds.EnvDatabase, db, "master").Append(nil)
	info := &tds.ErrorInfo{Number: 5701, State: 2, Class: 0, Message: "Changed database context to '" + db + "'.", ServerName: "tdstest"}
	out = info.Append(out, tds.TokenInfo)
	ack := &tds.LoginAck{Interface: 1, TDSVersion: tds.Version74, ProgName: "Microsoft SQL Server", Major: 16, Minor: 0, BuildHi: 0x0F, BuildLo: 0xA0}
	out = ack.Append(out)
	out = tds.EnvString(tds.EnvPacketSize, strconv.Itoa(packetSize), strconv.Itoa(packetSize)).Append(out)
	if _, asked := l.Feature(tds.FeatureDataClassif); asked && s.DataClassification != 0 {
		out = tds.AppendFeatureExtAck(out, []tds.Feature{{ID: tds.FeatureDataClassif, Data: []byte{s.DataClassification, 1}}})
	}
	return (&tds.Done{}).Append(out)
}
