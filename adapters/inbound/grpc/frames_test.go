package grpclistener

import (
	"bufio"
	"bytes"
	"testing"

	"golang.org/x/net/http2"
)

// PING and WINDOW_UPDATE frames read into a side's own frames come out as
// the Framer reads them: the same fields, the same kind of error.
func TestReadFrameAgreesWithFramer(t *testing.T) {
	raw := func(typ http2.FrameType, flags http2.Flags, id uint32, p ...byte) []byte {
		var b bytes.Buffer
		_ = http2.NewFramer(&b, nil).WriteRawFrame(typ, flags, id, p)
		return b.Bytes()
	}
	cases := map[string][]byte{
		"ping":              raw(http2.FramePing, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8),
		"ping ack":          raw(http2.FramePing, http2.FlagPingAck, 0, 8, 7, 6, 5, 4, 3, 2, 1),
		"ping short":        raw(http2.FramePing, 0, 0, 1, 2, 3),
		"ping on a stream":  raw(http2.FramePing, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8),
		"window":            raw(http2.FrameWindowUpdate, 0, 0, 0, 1, 0, 0),
		"window on stream":  raw(http2.FrameWindowUpdate, 0, 5, 0x80, 0, 0, 9),
		"window zero":       raw(http2.FrameWindowUpdate, 0, 0, 0, 0, 0, 0),
		"window zero on 5":  raw(http2.FrameWindowUpdate, 0, 5, 0x80, 0, 0, 0),
		"window long":       raw(http2.FrameWindowUpdate, 0, 0, 0, 0, 0, 1, 0),
		"ping cut off":      raw(http2.FramePing, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8)[:12],
		"data goes through": raw(http2.FrameData, 0, 1, 'h', 'i'),
	}
	for name, wire := range cases {
		t.Run(name, func(t *testing.T) {
			want, werr := http2.NewFramer(nil, bytes.NewReader(wire)).ReadFrame()
			d := newSide("test", nil, bufio.NewReader(bytes.NewReader(wire)), 1<<16)
			got, err := d.readFrame()
			if kind(err) != kind(werr) {
				t.Fatalf("error %v (%s), the Framer's %v (%s)", err, kind(err), werr, kind(werr))
			}
			if werr != nil {
				return
			}
			switch w := want.(type) {
			case *http2.PingFrame:
				g := got.(*http2.PingFrame)
				if g.Header() != w.Header() || g.Data != w.Data || g.IsAck() != w.IsAck() {
					t.Fatalf("%+v, the Framer's %+v", g, w)
				}
			case *http2.WindowUpdateFrame:
				g := got.(*http2.WindowUpdateFrame)
				if g.Header() != w.Header() || g.Increment != w.Increment {
					t.Fatalf("%+v, the Framer's %+v", g, w)
				}
			case *http2.DataFrame:
				if g := got.(*http2.DataFrame); string(g.Data()) != string(w.Data()) {
					t.Fatalf("data %q, the Framer's %q", g.Data(), w.Data())
				}
			}
		})
	}
}
