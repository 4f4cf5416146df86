package mongodb

import (
	"context"
	"encoding/binary"
	"errors"
	"io"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/app"
)

// smallMessage is the size up to which a client message is read without
// taking from the held-payload budget (app.HeldBudget), in bytes.
const smallMessage = 64 << 10

// readClient reads the client's next whole message (header included),
// bounding what it holds in memory:
//   - a messageLength under the header's size or over the upstream's
//     maxMessageSizeBytes is malformed: the connection closes;
//   - a message over smallMessage takes its length from the process-wide
//     held-payload budget before it is read, and gives it back once it is
//     forwarded or denied (res.Release); when the budget refuses, the
//     message is skipped unread and answered with 146 ExceededMemoryLimit,
//     and the next message is read.
//
// Messages up to smallMessage reuse *buf.
func (s *session) readClient(buf *[]byte) ([]byte, *app.Reservation, error) {
	for {
		head, err := s.cr.Peek(wire.HeaderLen)
		if err != nil {
			if errors.Is(err, io.EOF) && len(head) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, nil, err
		}
		hdr, _ := wire.ParseHeader(head)
		n := int64(hdr.Length)
		if n < wire.HeaderLen || n > int64(s.max()) {
			return nil, nil, errMalformed{&wire.SizeError{Length: n, Max: s.max()}}
		}
		if n <= smallMessage {
			msg, err := wire.ReadMessageBuf(s.cr, *buf, s.max())
			if err != nil {
				return nil, nil, readErr(err)
			}
			*buf = msg
			return msg, nil, nil
		}
		res, err := s.l.Held().Reserve(context.Background(), n)
		if err != nil {
			// The message is over 64 KiB: its flagBits are there to peek.
			head, _ = s.cr.Peek(wire.HeaderLen + 4)
			moreToCome := hdr.OpCode == wire.OpMsg && len(head) >= wire.HeaderLen+4 &&
				wire.MsgFlag(binary.LittleEndian.Uint32(head[wire.HeaderLen:]))&wire.MoreToCome != 0
			if _, derr := s.cr.Discard(int(n)); derr != nil {
				return nil, nil, derr
			}
			s.log.Warn("mongodb message refused: the held-payload budget is full", "bytes", n, "error", err)
			if !moreToCome {
				if err := s.reply(hdr, hdr.OpCode == wire.OpQuery, errorDoc(CodeOutOfMemory, err.Error())); err != nil {
					return nil, nil, err
				}
			}
			continue
		}
		msg, err := wire.ReadMessage(s.cr, s.max())
		if err != nil {
			res.Release()
			return nil, nil, readErr(err)
		}
		return msg, res, nil
	}
}

// readErr marks a size error as malformed (the connection closes with a
// log line); other errors are the connection's own.
func readErr(err error) error {
	var se *wire.SizeError
	if errors.As(err, &se) {
		return errMalformed{err}
	}
	return err
}
