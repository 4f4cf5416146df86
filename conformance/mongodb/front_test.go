package mongodb

import (
	"crypto/tls"
	"net"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// front is the shape the suite's stand-in upstreams share (the SCRAM front,
// the bulkWrite front, the X.509 front): a small server on a random
// loopback port that the Sidecar connects to instead of the suite's
// upstream. Each connection is relayed to target, message by message; the
// stand-in answers some commands itself (answer) and may edit the target's
// reply to a hello (hello). S is what the stand-in keeps per connection.
// It counts the connections the Sidecar opened to it and closed.
type front[S any] struct {
	Addr   string
	Opened atomic.Int64 // connections accepted from the Sidecar
	Open   atomic.Int64 // connections accepted and not yet closed
	// Closed receives once for each connection the Sidecar closed (or
	// that ended), after Open went down.
	Closed chan struct{}
	// Commands receives the name of every command relayed to target (the
	// first key of the OP_MSG body), when not nil and not full.
	Commands chan string

	target string
	// answer returns the reply to an OP_MSG command the stand-in runs
	// itself, and true; false relays it to target.
	answer func(s *S, c net.Conn, m frontMsg) (bsoncore.Document, bool)
	// hello returns the reply to a hello (OP_MSG or legacy OP_QUERY) to
	// send to the client, given the target's.
	hello func(s *S, m frontMsg, reply []byte) []byte
}

// frontMsg is one client message a front read.
type frontMsg struct {
	Req        wire.Header
	Name       string // the command name, first key of the body
	Body       bsoncore.Document
	Seqs       []wire.Sequence
	Legacy     bool // an OP_QUERY command
	MoreToCome bool
}

// start listens on 127.0.0.1:0 (with TLS when cfg is not nil) and serves
// until the test ends.
func (f *front[S]) start(t *testing.T, target string, cfg *tls.Config) {
	t.Helper()
	f.target, f.Closed = target, make(chan struct{}, 64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	t.Cleanup(func() { ln.Close() })
	f.Addr = ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.Opened.Add(1)
			f.Open.Add(1)
			go func() {
				f.serve(c)
				f.Open.Add(-1)
				select {
				case f.Closed <- struct{}{}:
				default:
				}
			}()
		}
	}()
}

func (f *front[S]) serve(c net.Conn) {
	defer c.Close()
	if tc, ok := c.(*tls.Conn); ok && tc.Handshake() != nil {
		return
	}
	up, err := net.Dial("tcp", f.target)
	if err != nil {
		return
	}
	defer up.Close()
	var s S
	for {
		raw, err := wire.ReadMessage(c, 0)
		if err != nil {
			return
		}
		m := frontMsg{}
		m.Req, _ = wire.ParseHeader(raw)
		switch m.Req.OpCode {
		case wire.OpMsg:
			msg, err := wire.DecodeMsg(raw)
			if err != nil {
				return
			}
			m.Body, m.Seqs, m.MoreToCome = msg.Body, msg.Sequences, msg.MoreToCome()
		case wire.OpQuery:
			q, err := wire.DecodeQuery(raw)
			if err != nil {
				return
			}
			m.Body, m.Legacy = q.Query, true
		}
		if el, err := m.Body.IndexErr(0); err == nil {
			m.Name = el.Key()
		}
		if !m.Legacy && f.answer != nil {
			if doc, ok := f.answer(&s, c, m); ok {
				if m.MoreToCome {
					continue
				}
				if _, err := c.Write(wire.ReplyMsg(m.Req, m.Req.RequestID+1, doc)); err != nil {
					return
				}
				continue
			}
		}
		if f.Commands != nil && !m.Legacy {
			select {
			case f.Commands <- m.Name:
			default:
			}
		}
		if _, err := up.Write(raw); err != nil {
			return
		}
		if m.MoreToCome {
			continue
		}
		reply, err := wire.ReadMessage(up, 0)
		if err != nil {
			return
		}
		if isHelloName(m.Name) && f.hello != nil {
			reply = f.hello(&s, m, reply)
		}
		if _, err := c.Write(reply); err != nil {
			return
		}
	}
}
