package grpclistener

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// FuzzReadFrameAgreesWithFramer reads any bytes as a sequence of frames
// with a side's readFrame (its own PING, WINDOW_UPDATE and HEADERS
// readers, headers.go) and with http2.Framer (ReadMetaHeaders, what the
// relay used before), frame by frame until the first error: the same
// frames, the same header fields, the same kind of error (RFC 9113
// sections 4, 6.2, 6.7, 6.9, 6.10). One difference is allowed: where the
// bytes end inside a frame that is malformed too (a PING that is not 8
// bytes long), the side may see the malformation first; either way the
// connection ends.
func FuzzReadFrameAgreesWithFramer(f *testing.F) {
	req := testRequest
	var seq bytes.Buffer
	fr := http2.NewFramer(&seq, nil)
	_ = fr.WritePing(false, [8]byte{1, 2})
	_ = fr.WriteWindowUpdate(0, 9)
	seq.Write(headerFrames(f, req, 0))
	_ = fr.WriteData(1, false, []byte("msg"))
	seq.Write(headerFrames(f, fields{field("grpc-status", "0")}, 5))
	_ = fr.WriteWindowUpdate(3, 0)
	f.Add(seq.Bytes())
	f.Add(headerFrames(f, req, 7))
	f.Add(rawHeaders(http2.FlagHeadersPadded|http2.FlagHeadersPriority, 1, 1, 0x80, 0, 0, 3, 16, 0x88, 0))
	f.Add([]byte{0, 0, 8, 6, 0, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0, 0, 1, 1, 4, 0, 0, 0, 1, 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	const limit = 256
	f.Fuzz(func(t *testing.T, wire []byte) {
		ref := http2.NewFramer(nil, bytes.NewReader(wire))
		ref.SetMaxReadFrameSize(frameSize)
		ref.ReadMetaHeaders = hpack.NewDecoder(headerTable, nil)
		ref.MaxHeaderListSize = limit
		d := newSide("test", nil, bufio.NewReader(bytes.NewReader(wire)), limit)
		for i := 0; i < 16; i++ {
			want, werr := ref.ReadFrame()
			got, err := d.readFrame()
			if kind(err) != kind(werr) && !(cutOff(werr) && ends(err)) {
				t.Fatalf("frame %d: error %v (%s), the Framer's %v (%s)", i, err, kind(err), werr, kind(werr))
			}
			if werr != nil {
				return
			}
			sameFrame(t, i, got, d.blk, want)
		}
	})
}

// cutOff reports whether err is the end of the bytes inside a frame.
func cutOff(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// ends reports whether err ends the connection (not just a stream).
func ends(err error) bool {
	var se http2.StreamError
	return err != nil && !errors.As(err, &se)
}

// sameFrame fails t unless got (with blk, for HEADERS) is want.
func sameFrame(t *testing.T, i int, got http2.Frame, blk *headerBlock, want http2.Frame) {
	t.Helper()
	if mh, ok := want.(*http2.MetaHeadersFrame); ok {
		h, w := got.Header(), mh.Header()
		if h.Type != w.Type || h.Flags != w.Flags || h.Length != w.Length || h.StreamID != w.StreamID ||
			got.(*http2.HeadersFrame).Priority != mh.Priority {
			t.Fatalf("frame %d: %+v, the Framer's %+v", i, got, mh.HeadersFrame)
		}
		if !slices.Equal(blk.fields, fields(mh.Fields)) || blk.truncated != mh.Truncated || blk.ended != mh.StreamEnded() {
			t.Fatalf("frame %d: fields %v truncated=%v, the Framer's %v truncated=%v", i, blk.fields, blk.truncated, mh.Fields, mh.Truncated)
		}
		return
	}
	if got.Header() != want.Header() {
		t.Fatalf("frame %d: header %+v, the Framer's %+v", i, got.Header(), want.Header())
	}
	switch w := want.(type) {
	case *http2.PingFrame:
		if g := got.(*http2.PingFrame); g.Data != w.Data {
			t.Fatalf("frame %d: ping %v, the Framer's %v", i, g.Data, w.Data)
		}
	case *http2.WindowUpdateFrame:
		if g := got.(*http2.WindowUpdateFrame); g.Increment != w.Increment {
			t.Fatalf("frame %d: increment %d, the Framer's %d", i, g.Increment, w.Increment)
		}
	case *http2.DataFrame:
		if g := got.(*http2.DataFrame); !bytes.Equal(g.Data(), w.Data()) {
			t.Fatalf("frame %d: data %q, the Framer's %q", i, g.Data(), w.Data())
		}
	}
}
