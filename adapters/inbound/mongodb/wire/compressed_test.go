package wire

import (
	"bytes"
	"compress/zlib"
	"errors"
	"runtime"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

var allCompressors = []CompressorID{CompressorNoop, CompressorSnappy, CompressorZlib, CompressorZstd}

func TestCompressRoundTrip(t *testing.T) {
	find := frame(11, 0, OpMsg, le32(0), []byte{0}, doc(t, `{"find": "t", "filter": {"a": 1}, "$db": "test"}`))
	query := frame(12, 0, OpQuery, le32(0), []byte("admin.$cmd\x00"), le32(0), le32(1), doc(t, `{"isMaster": 1}`))
	for _, id := range allCompressors {
		for _, msg := range [][]byte{find, query} {
			c, err := Compress(msg, id)
			if err != nil {
				t.Fatal(err)
			}
			dc, err := DecodeCompressed(c)
			if err != nil {
				t.Fatalf("%v: %v", id, err)
			}
			h, _ := ParseHeader(msg)
			if dc.CompressorID != id || dc.OriginalOpCode != h.OpCode || int(dc.UncompressedSize) != len(msg)-HeaderLen || dc.Header.RequestID != h.RequestID {
				t.Fatalf("%v: decoded %+v", id, dc)
			}
			if !bytes.Equal(dc.Append(nil), c) {
				t.Fatalf("%v: Append differs", id)
			}
			got, err := dc.Decompress(0)
			if err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("%v: Decompress %x, %v; want %x", id, got, err, msg)
			}
			if got, err := Decompress(c, len(msg)); err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("%v: Decompress at exactly the maximum: %v", id, err)
			}
		}
	}
	if got, err := Decompress(find, 0); err != nil || &got[0] != &find[0] {
		t.Fatal("Decompress of an uncompressed message must return it as is")
	}
}

// TestDecompressCaptures: mongosh's zlib messages decompress to OP_MSGs.
func TestDecompressCaptures(t *testing.T) {
	n := 0
	for name, raw := range captures(t) {
		c, err := DecodeCompressed(raw)
		if err != nil {
			continue
		}
		if c.CompressorID != CompressorZlib {
			t.Fatalf("%s: compressor %v", name, c.CompressorID)
		}
		msg, err := c.Decompress(0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := DecodeMsg(msg); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n++
	}
	if n < 5 {
		t.Fatalf("only %d OP_COMPRESSED captures", n)
	}
}

func TestDecompressRefuses(t *testing.T) {
	plain := frame(1, 0, OpMsg, le32(0), []byte{0}, doc(t, `{"ping": 1}`))
	size := int32(len(plain) - HeaderLen)
	zeros := make([]byte, 2<<20) // 2 MiB of zeros: a few KB compressed
	var zl bytes.Buffer
	w := zlib.NewWriter(&zl)
	w.Write(zeros)
	w.Close()
	enc, _ := zstd.NewWriter(nil)
	zs := enc.EncodeAll(zeros, nil)
	mk := func(op OpCode, n int32, id CompressorID, payload []byte) []byte {
		c := Compressed{Header: Header{RequestID: 1}, OriginalOpCode: op, UncompressedSize: n, CompressorID: id, Payload: payload}
		return c.Append(nil)
	}
	tests := []struct {
		name string
		msg  []byte
		max  int
		size bool   // a *SizeError
		want string // else a *MalformedError saying this
	}{
		{name: "uncompressedSize over the maximum", msg: mk(OpMsg, 1000, CompressorNoop, make([]byte, 1000)), max: 1000, size: true},
		{name: "uncompressedSize negative", msg: mk(OpMsg, -1, CompressorNoop, nil), size: true},
		{name: "uncompressedSize over the default maximum", msg: mk(OpMsg, DefaultMaxMessageSize, CompressorZlib, zl.Bytes()), size: true},
		{name: "OP_COMPRESSED inside", msg: mk(OpCompressed, size, CompressorNoop, plain[HeaderLen:]), want: "originalOpcode is OP_COMPRESSED"},
		{name: "unknown compressor", msg: mk(OpMsg, size, 9, plain[HeaderLen:]), want: "unsupported compressorId 9"},
		{name: "noop shorter", msg: mk(OpMsg, size+1, CompressorNoop, plain[HeaderLen:]), want: "decompressed size"},
		{name: "snappy size differs", msg: mk(OpMsg, size+1, CompressorSnappy, snappy.Encode(nil, plain[HeaderLen:])), want: "decompressed size"},
		{name: "snappy garbage", msg: mk(OpMsg, size, CompressorSnappy, []byte{0xFF, 0xFF, 0xFF}), want: "CompressorSnappy"},
		{name: "zlib garbage", msg: mk(OpMsg, size, CompressorZlib, []byte("not zlib")), want: "CompressorZLib"},
		{name: "zlib expands past uncompressedSize", msg: mk(OpMsg, 1000, CompressorZlib, zl.Bytes()), want: "decompressed size"},
		{name: "zlib ends before uncompressedSize", msg: mk(OpMsg, 3<<20, CompressorZlib, zl.Bytes()), want: "decompressed size"},
		{name: "zstd expands past uncompressedSize", msg: mk(OpMsg, 1000, CompressorZstd, zs), want: "decompressed size"},
		{name: "zstd ends before uncompressedSize", msg: mk(OpMsg, 3<<20, CompressorZstd, zs), want: "decompressed size"},
		{name: "zstd garbage", msg: mk(OpMsg, size, CompressorZstd, []byte("not zstd at all")), want: "CompressorZstd"},
		{name: "fixed fields missing", msg: frame(1, 0, OpCompressed, le32(2013), le32(1)), want: "9 fixed bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decompress(tt.msg, tt.max)
			if got != nil {
				t.Fatalf("decompressed %d bytes", len(got))
			}
			if tt.size {
				var se *SizeError
				if !errors.As(err, &se) {
					t.Fatalf("error %v, want *SizeError", err)
				}
				return
			}
			wantMalformed(t, err, tt.want)
		})
	}
	if _, err := Decompress(mk(OpMsg, size, 9, plain[HeaderLen:]), 0); !errors.Is(err, ErrUnsupportedCompressor) {
		t.Fatalf("Decompress with id 9: %v is not ErrUnsupportedCompressor", err)
	}
	if _, err := Compress(plain, 7); !errors.Is(err, ErrUnsupportedCompressor) {
		t.Fatalf("Compress with id 7: %v", err)
	}
}

// TestDecompressDoesNotTrustTheClaimedSize: memory follows the bytes that
// really decompress; a small message claiming 40 MB does not make the
// listener allocate 40 MB.
func TestDecompressDoesNotTrustTheClaimedSize(t *testing.T) {
	var zl bytes.Buffer
	w := zlib.NewWriter(&zl)
	w.Write(make([]byte, 1000))
	w.Close()
	enc, _ := zstd.NewWriter(nil)
	for _, c := range []Compressed{
		{OriginalOpCode: OpMsg, UncompressedSize: 40_000_000, CompressorID: CompressorZlib, Payload: zl.Bytes()},
		{OriginalOpCode: OpMsg, UncompressedSize: 40_000_000, CompressorID: CompressorZstd, Payload: enc.EncodeAll(make([]byte, 1000), nil)},
		{OriginalOpCode: OpMsg, UncompressedSize: 40_000_000, CompressorID: CompressorSnappy, Payload: snappy.Encode(nil, make([]byte, 1000))},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := c.Decompress(0)
		runtime.ReadMemStats(&after)
		wantMalformed(t, err, "decompressed size")
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
			t.Errorf("%v: allocated %d bytes for 1,000 that decompress", c.CompressorID, grew)
		}
	}
}
