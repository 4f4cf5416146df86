package wire

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// The fuzz targets frame the fuzzer's bytes with a header of the right
// length and opCode, so mutations reach the message body instead of
// dying on the messageLength check (which TestReadMessage covers, and
// FuzzReadMessage below).

// seedBodies adds the bodies (after the header) of the captured messages
// of opCode op, plus extra, to f.
func seedBodies(f *testing.F, op OpCode, extra ...[]byte) {
	for _, raw := range captures(f) {
		if h, err := ParseHeader(raw); err == nil && h.OpCode == op {
			f.Add(raw[HeaderLen:], false)
		}
	}
	for _, b := range extra {
		f.Add(b, false)
	}
}

func FuzzOpMsg(f *testing.F) {
	body := doc(f, `{"insert": "t", "$db": "test"}`)
	seedBodies(f, OpMsg,
		cat(le32(0), []byte{0}, body),
		cat(le32(1), []byte{0}, body, le32(0)),
		cat(le32(2|1<<16), []byte{1}, seq("documents", doc(f, `{"a": 1}`), doc(f, `{"b": [1, {"c": "x"}]}`)), []byte{0}, body),
		cat(le32(0), []byte{0}, nest(MaxDepth+1)),
	)
	f.Fuzz(func(t *testing.T, b []byte, fixChecksum bool) {
		msg := frame(1, 0, OpMsg, b)
		if fixChecksum && len(msg) >= HeaderLen+8 {
			binary.LittleEndian.PutUint32(msg[len(msg)-4:], crc32.Checksum(msg[:len(msg)-4], castagnoli))
		}
		m, err := DecodeMsg(msg)
		if err != nil {
			if m != nil {
				t.Fatal("a message with an error")
			}
			return
		}
		if got := m.Append(nil); !bytes.Equal(got, msg) {
			t.Fatalf("decode then Append differs:\n got %x\nwant %x", got, msg)
		}
		for _, s := range m.Sequences {
			for _, d := range s.Documents {
				if ValidateDocument(d) != nil {
					t.Fatal("an invalid document was accepted")
				}
			}
		}
	})
}

func FuzzOpQuery(f *testing.F) {
	q := doc(f, `{"isMaster": 1, "helloOk": true}`)
	seedBodies(f, OpQuery,
		cat(le32(0), []byte("admin.$cmd\x00"), le32(0), le32(1), q),
		cat(le32(4), []byte("test.t\x00"), le32(2), le32(0xFFFFFFFF), q, doc(f, `{"a": 1}`)),
	)
	f.Fuzz(func(t *testing.T, b []byte, _ bool) {
		msg := frame(1, 0, OpQuery, b)
		q, err := DecodeQuery(msg)
		if err != nil {
			return
		}
		if got := q.Append(nil); !bytes.Equal(got, msg) {
			t.Fatalf("decode then Append differs:\n got %x\nwant %x", got, msg)
		}
		_, _ = q.Database(), q.IsCommand()
	})
}

func FuzzOpCompressed(f *testing.F) {
	plain := frame(9, 0, OpMsg, le32(0), []byte{0}, doc(f, `{"find": "t", "filter": {"a": 1}, "$db": "test"}`))
	var extra [][]byte
	for _, id := range []CompressorID{CompressorNoop, CompressorSnappy, CompressorZlib, CompressorZstd} {
		c, err := Compress(plain, id)
		if err != nil {
			f.Fatal(err)
		}
		extra = append(extra, c[HeaderLen:])
	}
	seedBodies(f, OpCompressed, extra...)
	const max = 1 << 20 // a fuzzer's uncompressedSize may claim up to 2 GiB: keep allocations small
	f.Fuzz(func(t *testing.T, b []byte, _ bool) {
		msg := frame(1, 0, OpCompressed, b)
		c, err := DecodeCompressed(msg)
		if err != nil {
			return
		}
		if got := c.Append(nil); !bytes.Equal(got, msg) {
			t.Fatalf("decode then Append differs:\n got %x\nwant %x", got, msg)
		}
		orig, err := c.Decompress(max)
		if err != nil {
			return
		}
		h, err := ParseHeader(orig)
		if err != nil || int(h.Length) != len(orig) || h.OpCode != c.OriginalOpCode || len(orig) != HeaderLen+int(c.UncompressedSize) {
			t.Fatalf("rebuilt header %+v for %d bytes", h, len(orig))
		}
		// What the listener does next: decode the original.
		switch h.OpCode {
		case OpMsg:
			_, _ = DecodeMsg(orig)
		case OpQuery:
			_, _ = DecodeQuery(orig)
		}
	})
}

// FuzzReadMessage: any byte stream gives whole messages or an error, never
// a panic, and never a message over the maximum.
func FuzzReadMessage(f *testing.F) {
	for _, raw := range captures(f) {
		f.Add(raw, 0)
	}
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0x7F}, 100)
	f.Fuzz(func(t *testing.T, b []byte, max int) {
		max = max % (1 << 16)
		r := bytes.NewReader(b)
		for {
			m, err := ReadMessage(r, max)
			if err != nil {
				return
			}
			limit := max
			if limit <= 0 {
				limit = DefaultMaxMessageSize
			}
			if len(m) < HeaderLen || len(m) > limit {
				t.Fatalf("a %d-byte message with maximum %d", len(m), limit)
			}
		}
	})
}
