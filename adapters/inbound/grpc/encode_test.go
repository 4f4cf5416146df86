package grpclistener

import (
	"bytes"
	"strconv"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// A side's header blocks, sent again from its blockMemo, are byte for byte
// what its HPACK encoder would have written: blocks repeated, blocks that
// add to the table in between, sensitive fields, table size changes.
func TestBlockMemoWritesWhatTheEncoderWould(t *testing.T) {
	resp := fields{field(":status", "200"), field("content-type", "application/grpc")}
	ok := fields{field("grpc-status", "0"), field("grpc-message", "")}
	req := func(timeout string) fields {
		return fields{field(":method", "POST"), field(":path", "/p.S/M"), field("grpc-timeout", timeout), field("te", "trailers")}
	}
	secret := fields{{Name: "authorization", Value: "x", Sensitive: true}}
	var seq []fields
	for i := range 40 {
		seq = append(seq, resp, ok, req("1S"), resp, ok)
		switch i % 5 {
		case 1:
			seq = append(seq, req(strconv.Itoa(i)+"m")) // a new entry in the table
		case 2:
			seq = append(seq, secret, fields{field("x-"+strconv.Itoa(i), "v")})
		case 3:
			seq = append(seq, nil) // table size change, below
		}
	}
	var want bytes.Buffer
	plain := hpack.NewEncoder(&want)
	s := newSide("test", nil, nil, 1<<16)
	for i, f := range seq {
		if f == nil {
			size := uint32(1024 + 512*(i%3))
			plain.SetMaxDynamicTableSizeLimit(size)
			if _, err := s.applySettings(settingsFrame(t, http2.Setting{ID: http2.SettingHeaderTableSize, Val: size})); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want.Reset()
		for _, hf := range f {
			_ = plain.WriteField(hf)
		}
		s.out = s.out[:0]
		s.writeHeaders(1, f, false)
		if got := s.out[9:]; !bytes.Equal(got, want.Bytes()) { // after the frame header
			t.Fatalf("block %d %v: %x, the encoder wrote %x", i, f, got, want.Bytes())
		}
	}
	if _, hit := s.memo.lookup(resp); !hit {
		t.Error("the response headers are not remembered")
	}
}

// settingsFrame returns a SETTINGS frame with set, as read.
func settingsFrame(t *testing.T, set ...http2.Setting) *http2.SettingsFrame {
	t.Helper()
	var b bytes.Buffer
	_ = http2.NewFramer(&b, nil).WriteSettings(set...)
	f, err := http2.NewFramer(nil, &b).ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	return f.(*http2.SettingsFrame)
}
