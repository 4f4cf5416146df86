package grpclistener

import (
	"bufio"
	"bytes"
	"errors"
	"slices"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// testRequest is a gRPC call's request header fields.
var testRequest = fields{field(":method", "POST"), field(":scheme", "http"), field(":path", "/p.S/M"),
	field(":authority", "x"), field("content-type", "application/grpc"), field("te", "trailers")}

// TestHeaderBlockAgreesWithFramer reads header blocks with headerBlock and
// with http2.Framer's ReadMetaHeaders (what the relay used before): the same
// fields, truncation and kind of error.
func TestHeaderBlockAgreesWithFramer(t *testing.T) {
	req := testRequest
	cases := map[string]struct {
		f     fields
		split int    // CONTINUATION frames of this many bytes (0: one HEADERS)
		raw   []byte // a HEADERS frame as it is, for malformed ones
	}{
		"padded":             {raw: rawHeaders(http2.FlagHeadersPadded, 1, 2, 0x88, 0, 0)},
		"priority":           {raw: rawHeaders(http2.FlagHeadersPriority, 1, 0x80, 0, 0, 3, 16, 0x88)},
		"pad too big":        {raw: rawHeaders(http2.FlagHeadersPadded, 1, 5, 0x88)},
		"padded empty":       {raw: rawHeaders(http2.FlagHeadersPadded, 1)},
		"priority short":     {raw: rawHeaders(http2.FlagHeadersPriority, 1, 0, 0, 3)},
		"stream 0":           {raw: rawHeaders(0, 0, 0x88)},
		"request":            {f: req},
		"request in pieces":  {f: req, split: 7},
		"response":           {f: fields{field(":status", "200"), field("content-type", "application/grpc")}},
		"trailers":           {f: fields{field("grpc-status", "0"), field("grpc-message", "")}},
		"uppercase name":     {f: fields{field(":status", "200"), field("Bad", "x")}},
		"bad value":          {f: fields{field(":status", "200"), field("x", "a\x00b")}},
		"pseudo after":       {f: fields{field("x", "1"), field(":status", "200")}},
		"unknown pseudo":     {f: fields{field(":nope", "1")}},
		"duplicate pseudo":   {f: fields{field(":path", "/a"), field(":path", "/b")}},
		"mixed pseudo":       {f: fields{field(":path", "/a"), field(":status", "200")}},
		"over the limit":     {f: fields{field(":status", "200"), field("big", string(bytes.Repeat([]byte("v"), 300)))}},
		"trailer over limit": {f: fields{field("trailer", string(bytes.Repeat([]byte("a,"), 200)))}},
		"over in pieces":     {f: fields{field("a", string(bytes.Repeat([]byte("v"), 200))), field("b", "c")}, split: 50},
	}
	const limit = 256
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			wire := c.raw
			if wire == nil {
				wire = headerFrames(t, c.f, c.split)
			}
			ref := http2.NewFramer(nil, bytes.NewReader(wire))
			ref.ReadMetaHeaders = hpack.NewDecoder(headerTable, nil)
			ref.MaxHeaderListSize = limit
			rf, rerr := ref.ReadFrame()

			d := newSide("test", nil, bufio.NewReader(bytes.NewReader(wire)), limit)
			f, err := d.readFrame()
			b := d.blk

			if kind(err) != kind(rerr) {
				t.Fatalf("error %v (%s), the Framer's %v (%s)", err, kind(err), rerr, kind(rerr))
			}
			if rerr != nil {
				return
			}
			mh := rf.(*http2.MetaHeadersFrame)
			if !slices.Equal(b.fields, fields(mh.Fields)) || b.truncated != mh.Truncated || b.ended != mh.StreamEnded() || b.id != 1 {
				t.Fatalf("got %v truncated=%v, the Framer %v truncated=%v", b.fields, b.truncated, mh.Fields, mh.Truncated)
			}
			if h, w := f.Header(), mh.Header(); h.Type != w.Type || h.Flags != w.Flags || h.Length != w.Length ||
				h.StreamID != w.StreamID || f.(*http2.HeadersFrame).Priority != mh.Priority {
				t.Fatalf("frame %+v, the Framer's %+v", f, mh.HeadersFrame)
			}
		})
	}
}

// headerFrames encodes f as HEADERS (END_STREAM) on stream 1, and
// CONTINUATION frames of split bytes when split is positive.
func headerFrames(t testing.TB, f fields, split int) []byte {
	t.Helper()
	var blk, out bytes.Buffer
	enc := hpack.NewEncoder(&blk)
	for _, hf := range f {
		if err := enc.WriteField(hf); err != nil {
			t.Fatal(err)
		}
	}
	b := blk.Bytes()
	n := len(b)
	if split > 0 {
		n = min(n, split)
	}
	w := http2.NewFramer(&out, nil)
	_ = w.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: b[:n], EndStream: true, EndHeaders: n == len(b)})
	for b = b[n:]; len(b) > 0; b = b[n:] {
		n = min(len(b), split)
		_ = w.WriteContinuation(1, n == len(b), b[:n])
	}
	return out.Bytes()
}

// rawHeaders is a HEADERS frame (END_HEADERS set) on stream id with payload p.
func rawHeaders(flags http2.Flags, id uint32, p ...byte) []byte {
	var b bytes.Buffer
	_ = http2.NewFramer(&b, nil).WriteRawFrame(http2.FrameHeaders, flags|http2.FlagHeadersEndHeaders, id, p)
	return b.Bytes()
}

// kind names an error's HTTP/2 kind and code.
func kind(err error) string {
	var se http2.StreamError
	var ce http2.ConnectionError
	switch {
	case err == nil:
		return "none"
	case errors.As(err, &se):
		return "stream " + se.Code.String()
	case errors.As(err, &ce):
		return "connection " + http2.ErrCode(ce).String()
	}
	return "other: " + err.Error()
}
