package tdstest

import (
	"io"
	"time"

	"github.com/hoophq/sidecar/internal/tds"
)

// Session answers the requests of one connection when Server.Session is
// set: it keeps per-connection state (current database, transaction) that
// the stateless OnBatch/OnRPC handlers cannot.
type Session interface {
	// Login answers a LOGIN7 with a token stream; false closes the
	// connection after it (a failed login).
	Login(l *tds.Login7, packetSize int) (reply []byte, ok bool)
	// Batch answers a SQLBatch by writing tokens to w and ending it. A
	// positive wait leaves the request running without ending w: the server
	// calls Elapsed after wait, or Attention when the client cancels first.
	Batch(b *tds.SQLBatch, w *Reply) (wait time.Duration)
	// RPC answers an RPC request, as Batch.
	RPC(r *tds.RPC, w *Reply) (wait time.Duration)
	// Transaction answers a Transaction Manager request (packet type 14,
	// MS-TDS 2.2.6.9: how go-mssqldb begins, commits and rolls back).
	Transaction(data []byte, w *Reply)
	// Elapsed ends the running request once its wait is over.
	Elapsed(w *Reply)
	// Attention is called when the client's Attention arrives; running says
	// whether a request was still running. The server answers DONE(ATTN).
	Attention(running bool)
	// Reset is called before a request whose first packet has
	// RESETCONNECTION (skipTran: RESETCONNECTIONSKIPTRAN, the transaction
	// stays), as sp_reset_connection; it returns the tokens that open the
	// response (ENVCHANGE 18, the reset's acknowledgement).
	Reset(skipTran bool) []byte
	// Close is called when the connection ends.
	Close()
}

// Reply writes one response message (packet type REPLY) as it is built:
// full packets go out as soon as they fill, so a long result is never
// held whole in memory; End sends the last packet with EOM.
type Reply struct {
	w    io.Writer
	size int // negotiated packet size, header included
	buf  []byte
	id   byte
	err  error
}

// Write appends tokens to the response, sending every full packet.
func (r *Reply) Write(tokens []byte) error {
	if r.err != nil {
		return r.err
	}
	r.buf = append(r.buf, tokens...)
	room := r.size - tds.HeaderLen
	sent := 0
	for len(r.buf)-sent > room {
		r.flush(r.buf[sent:sent+room], 0)
		sent += room
	}
	r.buf = append(r.buf[:0], r.buf[sent:]...)
	return r.err
}

// End sends what is left as the message's last packet (EOM).
func (r *Reply) End() error {
	if r.err != nil {
		return r.err
	}
	r.flush(r.buf, tds.StatusEOM)
	r.buf = nil
	return r.err
}

func (r *Reply) flush(data []byte, status byte) {
	if r.err != nil {
		return
	}
	r.id++
	if r.id == 0 {
		r.id = 1
	}
	pkt := tds.Header{Type: tds.PacketReply, Status: status, Length: uint16(tds.HeaderLen + len(data)), PacketID: r.id}.Append(nil)
	_, r.err = r.w.Write(append(pkt, data...))
}

// reply starts the response to m, written to c: a pooled connection's
// reset (RESETCONNECTION on the request) is done and acknowledged first.
func (s *Server) reply(sess Session, m tds.Message, c io.Writer, packetSize int) *Reply {
	w := &Reply{w: c, size: packetSize}
	if m.Status&(tds.StatusResetConnection|tds.StatusResetConnectionSkipTran) != 0 {
		w.Write(sess.Reset(m.Status&tds.StatusResetConnectionSkipTran != 0))
	}
	return w
}

func (s *Server) request(wait time.Duration) time.Time {
	if wait <= 0 {
		return time.Time{}
	}
	return time.Now().Add(wait)
}
