package grpclistener

import (
	"bufio"
	"bytes"
	"net"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// HTTP/2 settings the relay advertises on both of its connections (the
// client's and the upstream's) and keeps to when it sends.
const (
	// frameSize is the largest frame the relay reads and sends: HTTP/2's
	// default SETTINGS_MAX_FRAME_SIZE, which every peer accepts, so a frame
	// read on one side is sent on as it is.
	frameSize = 16 << 10
	// streamWindow is the receive window of each stream (bytes the peer may
	// send on it before the relay has passed them on). With maxStreams it
	// bounds what the relay holds for a client connection: 25 MiB each way.
	streamWindow = 256 << 10
	// connWindow is the receive window of each connection.
	connWindow = 8 << 20
	// maxStreams is SETTINGS_MAX_CONCURRENT_STREAMS towards clients (at
	// most: an upstream's lower limit is passed on).
	maxStreams = 100
	// headerTable is SETTINGS_HEADER_TABLE_SIZE (HPACK's default).
	headerTable = 4096
)

// side is one of a session's two connections: to the client or to the
// upstream. Frames for it are encoded into out under the session's lock
// and written outside it (session.flush): by the goroutine that reads
// frames, just before it would block on its next read, so that one read's
// worth of frames leaves in one write with no goroutine hand-off; by the
// side's writer goroutine for frames that other goroutines (the gate's)
// encode. The window fields are the relay's send windows towards this peer
// (RFC 9113 section 6.9).
type side struct {
	name    string // "client" or "upstream", for logs
	conn    net.Conn
	br      *bufio.Reader
	fr      *http2.Framer // reads from br, writes into out
	blk     *headerBlock  // the HEADERS block read last (headers.go)
	ping    http2.PingFrame
	winUp   http2.WindowUpdateFrame // the last ones read (frames.go)
	headers http2.HeadersFrame
	in      []byte // the payload of the last HEADERS frame
	enc     *hpack.Encoder
	hbuf    bytes.Buffer
	memo    blockMemo // blocks enc produced that can be sent again (encode.go)
	out     []byte    // encoded frames not yet written
	spare   []byte
	writing bool          // a goroutine is writing out (outside the lock)
	wake    chan struct{} // wakes the writer goroutine

	sendConn    int64 // connection send window
	initWin     int64 // the peer's SETTINGS_INITIAL_WINDOW_SIZE
	maxStreams  uint32
	unackedConn int64 // bytes received from the peer not yet given back with WINDOW_UPDATE
}

// sideWriter appends the framer's frames to the side's out buffer.
type sideWriter struct{ s *side }

func (w sideWriter) Write(p []byte) (int, error) {
	w.s.out = append(w.s.out, p...)
	return len(p), nil
}

// kick wakes the side's writer goroutine (for frames encoded by a
// goroutine that reads no frames).
func (s *side) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// flushReader is what a side's frames are read from: before it blocks on
// the connection it writes the frames waiting for either side.
type flushReader struct {
	conn net.Conn
	s    *session // nil until the session exists
}

func (r *flushReader) Read(p []byte) (int, error) {
	if r.s != nil {
		r.s.flushAll()
	}
	return r.conn.Read(p)
}

// newSide returns the side for conn, reading through br, reading header
// lists of at most headerBytes.
func newSide(name string, conn net.Conn, br *bufio.Reader, headerBytes uint32) *side {
	s := &side{name: name, conn: conn, br: br, wake: make(chan struct{}, 1),
		sendConn: 65535, initWin: 65535, maxStreams: 1<<31 - 1}
	s.fr = http2.NewFramer(sideWriter{s}, br)
	s.fr.SetMaxReadFrameSize(frameSize)
	s.fr.SetReuseFrames() // a frame's payload is used (or copied) before the next read anyway
	s.blk = newHeaderBlock(headerBytes)
	s.enc = hpack.NewEncoder(&s.hbuf)
	return s
}

// settings writes the relay's SETTINGS and the connection window update
// that raises the peer's send window to connWindow.
func (s *side) settings(headerBytes uint32, extra ...http2.Setting) {
	set := append([]http2.Setting{
		{ID: http2.SettingInitialWindowSize, Val: streamWindow},
		{ID: http2.SettingMaxHeaderListSize, Val: headerBytes},
	}, extra...)
	_ = s.fr.WriteSettings(set...)
	_ = s.fr.WriteWindowUpdate(0, connWindow-65535)
}

// writeHeaders encodes f and writes it as HEADERS (and CONTINUATION frames
// when the block is larger than a frame) on stream id.
func (s *side) writeHeaders(id uint32, f fields, end bool) {
	b, ok := s.memo.lookup(f)
	if !ok {
		s.hbuf.Reset()
		for _, hf := range f {
			_ = s.enc.WriteField(hf)
		}
		b = s.hbuf.Bytes()
		s.memo.encoded(f, b)
	}
	first := b[:min(len(b), frameSize)]
	b = b[len(first):]
	_ = s.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first, EndStream: end, EndHeaders: len(b) == 0})
	for len(b) > 0 {
		chunk := b[:min(len(b), frameSize)]
		b = b[len(chunk):]
		_ = s.fr.WriteContinuation(id, len(b) == 0, chunk)
	}
}

// applySettings applies the peer's SETTINGS f to what the relay sends it
// and returns the change of its initial stream window (for the streams
// already open).
func (s *side) applySettings(f *http2.SettingsFrame) (delta int64, err error) {
	err = f.ForeachSetting(func(set http2.Setting) error {
		if err := set.Valid(); err != nil {
			return err
		}
		switch set.ID {
		case http2.SettingInitialWindowSize:
			delta += int64(set.Val) - s.initWin
			s.initWin = int64(set.Val)
		case http2.SettingHeaderTableSize:
			s.enc.SetMaxDynamicTableSizeLimit(min(set.Val, headerTable))
			s.memo.changed()
		case http2.SettingMaxConcurrentStreams:
			s.maxStreams = set.Val
		}
		return nil
	})
	return delta, err
}
