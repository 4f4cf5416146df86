package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestReadMessage(t *testing.T) {
	ok := frame(1, 0, OpMsg, le32(0), []byte{0}, doc(t, `{"ping": 1, "$db": "admin"}`))
	big := frame(1, 0, OpMsg, make([]byte, 200))
	withLen := func(n uint32) []byte { return cat(le32(n), make([]byte, 12)) }
	tests := []struct {
		name    string
		in      []byte
		max     int
		want    []byte
		wantErr error
		size    int64 // a *SizeError with this Length
		maxSeen int
	}{
		{name: "whole message", in: ok, want: ok},
		{name: "message followed by more bytes", in: cat(ok, []byte{1, 2, 3}), want: ok},
		{name: "exactly the maximum", in: big, max: len(big), want: big},
		{name: "nothing", in: nil, wantErr: io.EOF},
		{name: "half a header", in: ok[:7], wantErr: io.ErrUnexpectedEOF},
		{name: "body cut short", in: ok[:len(ok)-1], wantErr: io.ErrUnexpectedEOF},
		{name: "header only, body missing", in: ok[:16], wantErr: io.ErrUnexpectedEOF},
		{name: "negative length", in: withLen(0xFFFFFFF0), size: -16, maxSeen: DefaultMaxMessageSize},
		{name: "length shorter than the header", in: withLen(15), size: 15, maxSeen: DefaultMaxMessageSize},
		{name: "zero length", in: withLen(0), size: 0, maxSeen: DefaultMaxMessageSize},
		{name: "over the upstream's maximum", in: big, max: len(big) - 1, size: int64(len(big)), maxSeen: len(big) - 1},
		{name: "over the default maximum", in: withLen(DefaultMaxMessageSize + 1), size: DefaultMaxMessageSize + 1, maxSeen: DefaultMaxMessageSize},
		{name: "a 16 MiB message is fine by default", in: withLen(16<<20 + 1), wantErr: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bytes.NewReader(tt.in)
			got, err := ReadMessage(r, tt.max)
			switch {
			case tt.size != 0 || tt.maxSeen != 0:
				var se *SizeError
				if !errors.As(err, &se) || se.Length != tt.size || se.Max != tt.maxSeen {
					t.Fatalf("error %v, want SizeError{%d, %d}", err, tt.size, tt.maxSeen)
				}
				if r.Len() != len(tt.in)-HeaderLen {
					t.Fatalf("read %d bytes past the header of a refused message", len(tt.in)-HeaderLen-r.Len())
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
			default:
				if err != nil || !bytes.Equal(got, tt.want) {
					t.Fatalf("got %x, %v; want %x", got, err, tt.want)
				}
			}
		})
	}
}

func TestReadMessageBufReusesCapacity(t *testing.T) {
	a := frame(1, 0, OpMsg, le32(0), []byte{0}, doc(t, `{"ping": 1}`))
	b := frame(2, 0, OpMsg, le32(0), []byte{0}, doc(t, `{"ping": 2}`))
	r := bytes.NewReader(cat(a, b))
	buf := make([]byte, 0, 256)
	got, err := ReadMessageBuf(r, buf, 0)
	if err != nil || !bytes.Equal(got, a) || &got[0] != &buf[:1][0] {
		t.Fatalf("first message %x, %v; want %x in buf", got, err, a)
	}
	got, err = ReadMessageBuf(r, got, 0)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("second message %x, %v; want %x", got, err, b)
	}
	if _, err := ReadMessageBuf(r, got, 0); err != io.EOF {
		t.Fatalf("after the last message: %v, want io.EOF", err)
	}
}
