package grpclistener

import (
	"encoding/binary"
	"io"

	"golang.org/x/net/http2"
)

// readFrame reads side d's next frame, valid until the next read. PING and
// WINDOW_UPDATE frames, which gRPC peers send with most calls, are read
// into frames the side reuses (the Framer allocates one for each), with
// the Framer's checks, and so are HEADERS frames, which come with their
// block decoded into d.blk (headers.go); other frames are the Framer's.
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
	case http2.FrameHeaders:
		return d.readHeaders(fh)
	}
	return d.fr.ReadFrameForHeader(fh)
}

// readHeaders reads a HEADERS frame with header fh as the Framer does
// (RFC 9113 section 6.2) into the side's frame, and decodes its block into
// d.blk. The frame carries no block fragment: d.blk has the fields.
func (d *side) readHeaders(fh http2.FrameHeader) (http2.Frame, error) {
	if cap(d.in) < int(fh.Length) {
		d.in = make([]byte, fh.Length)
	}
	p := d.in[:fh.Length]
	if _, err := io.ReadFull(d.br, p); err != nil {
		return nil, err
	}
	if fh.StreamID == 0 {
		return nil, http2.ConnectionError(http2.ErrCodeProtocol)
	}
	d.headers = http2.HeadersFrame{FrameHeader: fh}
	var pad int
	if fh.Flags.Has(http2.FlagHeadersPadded) {
		if len(p) < 1 {
			return nil, io.ErrUnexpectedEOF // as the Framer
		}
		pad, p = int(p[0]), p[1:]
	}
	if fh.Flags.Has(http2.FlagHeadersPriority) {
		if len(p) < 5 {
			return nil, io.ErrUnexpectedEOF // as the Framer
		}
		pr := &d.headers.Priority
		pr.StreamDep = binary.BigEndian.Uint32(p) & 0x7fffffff
		pr.Exclusive = p[0]&0x80 != 0
		pr.Weight, p = p[4], p[5:]
	}
	if len(p) < pad {
		return nil, http2.StreamError{StreamID: fh.StreamID, Code: http2.ErrCodeProtocol}
	}
	return &d.headers, d.blk.read(d.fr, fh, p[:len(p)-pad])
}
