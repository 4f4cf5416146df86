package grpclistener

import (
	"encoding/binary"
	"io"

	"golang.org/x/net/http2"
)

// readFrame reads side d's next frame, valid until the next read. PING and
// WINDOW_UPDATE frames, which gRPC peers send with most calls, are read
// into frames the side reuses (the Framer allocates one for each), with
// the Framer's checks; a HEADERS frame comes with its block decoded into
// d.blk (headers.go); other frames are the Framer's.
func (d *side) readFrame() (http2.Frame, error) {
	fh, err := d.fr.ReadFrameHeader()
	if err != nil {
		return nil, err
	}
	switch fh.Type {
	case http2.FramePing:
		if fh.Length != 8 {
			return nil, http2.ConnectionError(http2.ErrCodeFrameSize)
		}
		d.ping = http2.PingFrame{FrameHeader: fh}
		if _, err := io.ReadFull(d.br, d.ping.Data[:]); err != nil {
			return nil, err
		}
		if fh.StreamID != 0 {
			return nil, http2.ConnectionError(http2.ErrCodeProtocol)
		}
		return &d.ping, nil
	case http2.FrameWindowUpdate:
		if fh.Length != 4 {
			return nil, http2.ConnectionError(http2.ErrCodeFrameSize)
		}
		p := d.ping.Data[:4] // the side's: a local array would escape to the heap
		if _, err := io.ReadFull(d.br, p); err != nil {
			return nil, err
		}
		d.winUp = http2.WindowUpdateFrame{FrameHeader: fh, Increment: binary.BigEndian.Uint32(p) & 0x7fffffff}
		if d.winUp.Increment == 0 { // RFC 9113 section 6.9
			if fh.StreamID == 0 {
				return nil, http2.ConnectionError(http2.ErrCodeProtocol)
			}
			return nil, http2.StreamError{StreamID: fh.StreamID, Code: http2.ErrCodeProtocol}
		}
		return &d.winUp, nil
	}
	f, err := d.fr.ReadFrameForHeader(fh)
	if hf, ok := f.(*http2.HeadersFrame); ok && err == nil {
		err = d.blk.read(d.fr, hf)
	}
	return f, err
}
