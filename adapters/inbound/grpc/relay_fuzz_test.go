package grpclistener

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"net"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/ports"
)

// fuzzHandler is a return-mode grpc listener on the in-memory Control
// Plane with an approval rule on /f.S/Held and a policy rule on /f.S/Deny,
// whose upstream connection reads up (its frames) and discards what the
// relay writes.
func fuzzHandler(tb testing.TB, up []byte) *handler {
	tb.Helper()
	s := app.ListenerSettings{Name: "fuzz-grpc", Protocol: ProtocolName, Mode: app.ModeReturn, SpendOn: ports.SpendOnAccepted,
		Upstream:  "127.0.0.1:1",
		Approvals: []domain.ApprovalRule{{Name: "held", Match: domain.Match{Targets: []string{"/f.S/Held"}}}},
		Policies:  []domain.PolicyRule{{Name: "deny", Match: domain.Match{Targets: []string{"/f.S/Deny"}}}}}
	for _, m := range []*domain.Match{&s.Approvals[0].Match, &s.Policies[0].Match} {
		if err := m.Compile(); err != nil {
			tb.Fatal(err)
		}
	}
	l := app.NewCore(app.CoreOptions{Sidecar: "fuzz", CP: fakecp.New(nil)}).Listener(s)
	return &handler{l: l, log: slog.New(slog.DiscardHandler), dial: func(context.Context, upstreamKey) (net.Conn, error) {
		return listenertest.ReadConn{R: bytes.NewReader(up)}, nil
	}}
}

// frames encodes HTTP/2 frames with w.
func frames(w func(fr *http2.Framer, enc func(...string) []byte)) []byte {
	var b, hb bytes.Buffer
	fr := http2.NewFramer(&b, nil)
	e := hpack.NewEncoder(&hb)
	w(fr, func(kv ...string) []byte {
		hb.Reset()
		for i := 0; i+1 < len(kv); i += 2 {
			_ = e.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
		}
		return append([]byte(nil), hb.Bytes()...)
	})
	return b.Bytes()
}

// grpcMsg is a length-prefixed message.
func grpcMsg(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(b))), b...)
}

// call writes one call to method on stream id with message msg.
func call(fr *http2.Framer, enc func(...string) []byte, id uint32, method string, msg []byte) {
	_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, EndHeaders: true, BlockFragment: enc(":method", "POST",
		":scheme", "http", ":path", method, ":authority", "x", "content-type", "application/grpc", "te", "trailers",
		"grpc-timeout", "1S", "x-hoop-approval", "return")})
	_ = fr.WriteData(id, true, grpcMsg(msg))
}

// FuzzRelayFrames feeds any frames to a session as a client's connection
// (after the preface) and any frames as its upstream's: the session never
// panics, and it ends when the client's bytes do. A malformed frame ends
// its stream or its connection with an HTTP/2 error, never the process.
func FuzzRelayFrames(f *testing.F) {
	client := frames(func(fr *http2.Framer, enc func(...string) []byte) {
		_ = fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 16})
		call(fr, enc, 1, "/f.S/Get", []byte("a"))
		call(fr, enc, 3, "/f.S/Held", []byte("b"))
		call(fr, enc, 5, "/f.S/Deny", nil)
		call(fr, enc, 7, "/f.S/Bad?x", nil)
		_ = fr.WriteWindowUpdate(0, 1000)
		_ = fr.WritePing(false, [8]byte{1})
		_ = fr.WriteRSTStream(1, http2.ErrCodeCancel)
	})
	up := frames(func(fr *http2.Framer, enc func(...string) []byte) {
		_ = fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 10})
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true, BlockFragment: enc(":status", "200", "content-type", "application/grpc")})
		_ = fr.WriteData(1, false, grpcMsg([]byte("reply")))
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true, EndStream: true, BlockFragment: enc("grpc-status", "0")})
		_ = fr.WriteGoAway(1, http2.ErrCodeNo, nil)
	})
	f.Add(client, up)
	f.Add(client[:len(client)/2], up[:len(up)/3])
	f.Add([]byte{0, 0, 4, 1, 5, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}, []byte(nil))
	f.Fuzz(func(t *testing.T, client, up []byte) {
		h := fuzzHandler(t, up)
		in := append([]byte(http2.ClientPreface), client...)
		h.serveConn(listenertest.ReadConn{R: bytes.NewReader(in)}, nil, newSessionSet(h.log))
	})
}

// FuzzMsgScan splits any bytes into DATA frames at any points: msgScan
// finds the same first over-limit message as reading the whole stream at
// once does.
func FuzzMsgScan(f *testing.F) {
	f.Add(append(grpcMsg([]byte("abc")), grpcMsg(make([]byte, 40))...), uint32(10), []byte{1, 3, 7})
	f.Add([]byte{0, 0, 0}, uint32(0), []byte{1})
	f.Fuzz(func(t *testing.T, data []byte, max uint32, cuts []byte) {
		var want uint32
		wantOver := false
		for b := data; len(b) >= prefixLen; {
			l := binary.BigEndian.Uint32(b[1:prefixLen])
			if l > max {
				want, wantOver = l, true
				break
			}
			if uint64(len(b)) < prefixLen+uint64(l) {
				break
			}
			b = b[prefixLen+int(l):]
		}
		var m msgScan
		var got uint32
		gotOver := false
		rest := data
		for i := 0; len(rest) > 0 && !gotOver; i++ {
			n := len(rest)
			if i < len(cuts) {
				n = min(n, int(cuts[i])+1)
			}
			got, gotOver = m.feed(rest[:n], max)
			rest = rest[n:]
		}
		if got != want || gotOver != wantOver {
			t.Fatalf("feed found %d %v, want %d %v", got, gotOver, want, wantOver)
		}
	})
}
