package mongodb

import (
	"bufio"
	"errors"
	"io"
	"net"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// relay copies the upstream's replies to the client until either side ends.
// A reply is streamed through unread (header, then its body in chunks, so
// a 16 MiB batch of a large find is never held whole; its length is not
// bounded by maxMessageSizeBytes, which only bounds what the listener reads
// whole) unless the request it
// answers asked for a look (pending): a reply a masking rule covers is
// masked (maskrelay.go), a hello reply gives the
// upstream's maxMessageSizeBytes, an authentication step's reply confirms
// the user, a reply to a command run with spend_approval_on: accepted
// settles its approval, and the reply to the listener's own request
// (abortTransaction, the upstream X.509 login) goes to it, not the client. Replies of an exhaust stream (moreToCome)
// answer the previous reply, not a request: they stream through.
func (s *session) relay() {
	defer s.client.Close()
	br := bufio.NewReaderSize(s.up, 64<<10)
	var head [wire.HeaderLen]byte
	small := make([]byte, 0, smallMessage)
	for {
		if _, err := io.ReadFull(br, head[:]); err != nil {
			switch {
			case errors.Is(err, net.ErrClosed): // the session closed it
			case s.idleUpstreamEnd():
				s.log.Info("mongodb upstream closed an idle connection; client connection closed", "error", err)
			case !errors.Is(err, io.EOF):
				s.log.Info("mongodb upstream connection ended", "error", err)
			}
			return
		}
		hdr, _ := wire.ParseHeader(head[:])
		if hdr.Length < wire.HeaderLen {
			s.log.Warn("mongodb upstream sent a message of an impossible length; connection closed", "length", hdr.Length)
			return
		}
		if s.unasked(hdr.ResponseTo) {
			// An answer to a moreToCome request: the client expects none and
			// would take it for the answer to its next request. A server
			// sends none; FerretDB 1.x does.
			if _, err := br.Discard(int(hdr.Length) - wire.HeaderLen); err != nil {
				return
			}
			s.log.Debug("mongodb upstream answered a moreToCome request; answer dropped", "responseTo", hdr.ResponseTo)
			continue
		}
		p := s.replied(hdr.ResponseTo)
		if p != nil && p.mask != nil {
			if err := s.relayMasked(p, head[:], br, hdr); err != nil {
				return
			}
			continue
		}
		if p != nil && int(hdr.Length) > s.max() {
			// Read whole only up to maxMessageSizeBytes; a larger answer to
			// a hello, an authentication step or a settling command is
			// streamed unread. Its command's outcome is then unknown: the
			// approval is spent, never given back (a resend would run the
			// command a second time).
			if p.ticket != nil {
				p.ticket.Spend()
			}
			if p.own != nil {
				p.own <- nil // too large to read: no answer
				if _, err := br.Discard(int(hdr.Length) - wire.HeaderLen); err != nil {
					return
				}
				continue
			}
			p = nil
		}
		if p == nil && int(hdr.Length) <= smallMessage {
			// A small reply goes out in one write (one syscall).
			small = append(small[:0], head[:]...)
			small = small[:hdr.Length]
			if _, err := io.ReadFull(br, small[wire.HeaderLen:]); err != nil {
				return
			}
			s.wmu.Lock()
			_, err := s.client.Write(small)
			s.wmu.Unlock()
			if err != nil {
				return
			}
			continue
		}
		if p == nil {
			if err := s.stream(head[:], br, int64(hdr.Length)-wire.HeaderLen); err != nil {
				return
			}
			continue
		}
		msg := make([]byte, hdr.Length)
		copy(msg, head[:])
		if _, err := io.ReadFull(br, msg[wire.HeaderLen:]); err != nil {
			return
		}
		if p.own != nil {
			p.own <- msg
			continue
		}
		s.inspect(p, msg)
		s.wmu.Lock()
		_, err := s.client.Write(msg)
		s.wmu.Unlock()
		if err != nil {
			return
		}
	}
}

// idleUpstreamEnd reports whether the upstream ended the connection while
// no command was being decided and no reply was owed (a command forwarded
// and answered counts as done, even before the session has noted it) (a restart, a
// failover, an idle timeout on the way). The relay reads the upstream at
// all times, so it is the idle watch: its return closes the client
// connection too, after every whole reply the upstream sent before, and
// the client's driver sees the close before its next command, as it
// would directly (issue 31 point 4).
func (s *session) idleUpstreamEnd() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.terminated && !s.owed && (!s.busy || s.forwarded) // a message sent on and answered is done
}

// unasked reports whether responseTo names one of the last moreToCome
// requests forwarded (whose answer, if any, must not reach the client).
func (s *session) unasked(responseTo int32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, id := range s.noReply {
		if id == responseTo && s.noReplySet[i] {
			s.noReplySet[i] = false
			return true
		}
	}
	return false
}

// replied takes the pending entry of the request a reply answers (nil when
// it needs no look) and notes that no reply is owed any more.
func (s *session) replied(responseTo int32) *pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pending[responseTo]
	delete(s.pending, responseTo)
	if n := s.outstanding[responseTo]; n > 1 {
		s.outstanding[responseTo] = n - 1
	} else {
		delete(s.outstanding, responseTo)
	}
	if p == nil || p.own == nil {
		s.owed = false
	}
	return p
}

// stream writes a reply's header and its n-byte body to the client without
// holding it whole.
func (s *session) stream(head []byte, br *bufio.Reader, n int64) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.client.Write(head); err != nil {
		return err
	}
	_, err := io.CopyN(s.client, br, n)
	return err
}

// inspect reads what a pending reply tells the listener. A reply it cannot
// decode is passed on unread: the client judges it.
func (s *session) inspect(p *pending, msg []byte) {
	body := replyBody(msg, s.max())
	if p.ticket != nil {
		// spend_approval_on: accepted: given back only with the reply's
		// proof that nothing ran (spend.go); anything else, an unreadable
		// reply too, spends it (a resend would run the command again).
		p.ticket.GiveBack(proof(body))
	}
	if body == nil {
		return
	}
	if p.hello {
		if v, ok := body.Lookup("maxMessageSizeBytes").AsInt64OK(); ok && v > wire.HeaderLen && v <= 1<<30 {
			s.maxSize.Store(int32(v))
		}
		if sa, ok := body.Lookup("speculativeAuthenticate").DocumentOK(); ok && p.auth != nil {
			// X.509 finishes in the hello; SCRAM finishes with saslContinue.
			if done, _ := sa.Lookup("done").BooleanOK(); done || p.auth.Mechanism == "MONGODB-X509" {
				s.confirmUser(true, p.user)
			}
		}
		return
	}
	if p.auth != nil {
		ok := commandOK(body)
		done, _ := body.Lookup("done").BooleanOK()
		switch {
		case !ok:
			s.confirmUser(false, p.user)
		case done || p.auth.Command == "authenticate":
			s.confirmUser(true, p.user)
		}
	}
}

// confirmUser makes user, the one the answered step's conversation
// claimed, the session's identity (ok) or forgets that claim (the upstream
// refused it). A claim made since by another conversation stays pending.
func (s *session) confirmUser(ok bool, user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok && user != "" {
		s.user = user
	}
	if s.pendingUser == user {
		s.pendingUser = ""
	}
}

// replyBody returns the command reply document of an OP_MSG or OP_REPLY
// (decompressed when it is an OP_COMPRESSED), nil when it has none.
func replyBody(msg []byte, max int) bsoncore.Document {
	orig, err := wire.Decompress(msg, max)
	if err != nil {
		return nil
	}
	h, err := wire.ParseHeader(orig)
	if err != nil {
		return nil
	}
	switch h.OpCode {
	case wire.OpMsg:
		if m, err := wire.DecodeMsg(orig); err == nil {
			return m.Body
		}
	case wire.OpReply:
		if r, err := wire.DecodeReply(orig); err == nil && len(r.Documents) > 0 {
			return r.Documents[0]
		}
	}
	return nil
}

// commandOK reports the reply's ok field as the server means it (1, of any
// numeric type, or true).
func commandOK(body bsoncore.Document) bool {
	v := body.Lookup("ok")
	if f, ok := v.AsFloat64OK(); ok {
		return f == 1
	}
	b, _ := v.BooleanOK()
	return b
}
