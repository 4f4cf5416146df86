package mssql

import (
	"errors"
	"io"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tds"
)

// smallMessage is the size up to which a client message is read without
// taking from the held-payload budget (app.HeldBudget).
const smallMessage = 64 << 10

// maxMessage is the largest request the listener reads: 256 MiB, SQL
// Server's own bound on a batch (65,536 × a 4 KiB packet).
const maxMessage = 256 << 20

// readRequest reads the client's next message, packet by packet (MS-TDS
// 2.2.3: packets of one type up to the one with EOM). Past smallMessage,
// each packet's length is taken from the process-wide held-payload budget
// before it is read, and given back once the request is forwarded or
// answered; when the budget refuses, the rest of the message is skipped
// unread and the request comes back with refused set (answered ERROR 701;
// the connection stays). A bad header, a packet type changing inside a
// message or a message over maxMessage is a protocolError.
func (s *session) readRequest(buf []byte) (request, []byte, error) {
	var r request
	var data []byte
	for first := true; ; first = false {
		h, body, err := readPacket(s.cr, buf, tds.MaxPacketSize)
		if err != nil {
			if !first && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			r.held.Release()
			return request{}, buf, err
		}
		buf = body[:0]
		if first {
			r.msg = tds.Message{Type: h.Type, Status: h.Status, SPID: h.SPID}
		} else if h.Type != r.msg.Type {
			r.held.Release()
			return request{}, buf, protoErr("packet type changed from %d to %d inside a message", r.msg.Type, h.Type)
		}
		if h.Status&tds.StatusIgnore != 0 {
			r.msg.Ignore = true
		}
		if len(data)+len(body) > maxMessage {
			r.held.Release()
			return request{}, buf, protoErr("message longer than %d bytes", maxMessage)
		}
		if len(data)+len(body) > smallMessage && r.refused == nil {
			total := int64(len(data) + len(body))
			var res *app.Reservation
			var err error
			if total > s.l.Held().Size() { // larger than the whole budget: refused at once
				err = &app.BudgetError{N: total, Size: s.l.Held().Size()}
			} else {
				res, err = s.l.Held().Reserve(s.ctx, int64(len(body)))
			}
			var be *app.BudgetError
			if errors.As(err, &be) {
				be.N = total
				r.held.Release()
				r.held, data, r.refused = nil, nil, be
			} else if err != nil {
				r.held.Release()
				return request{}, buf, err
			} else {
				r.held = append(r.held, res)
			}
		}
		if r.refused == nil {
			data = append(data, body...)
		}
		if h.Status&tds.StatusEOM != 0 {
			r.msg.Data = data
			return r, buf, nil
		}
	}
}
