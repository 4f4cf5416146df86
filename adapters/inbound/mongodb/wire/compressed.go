package wire

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// CompressorID is an OP_COMPRESSED's compressorId (the driver's
// wiremessage.CompressorID).
type CompressorID = wiremessage.CompressorID

// The compressorIds of the wire protocol ("OP_COMPRESSED").
const (
	CompressorNoop   = wiremessage.CompressorNoOp // 0: the message as is
	CompressorSnappy = wiremessage.CompressorSnappy
	CompressorZlib   = wiremessage.CompressorZLib
	CompressorZstd   = wiremessage.CompressorZstd
)

// maxZstdWindow bounds the window a zstd frame may ask the decoder to keep,
// so a tiny frame cannot make the listener reserve gigabytes. Drivers
// compress with at most an 8 MiB window; servers with their default level.
const maxZstdWindow = 64 << 20

// Compressed is an OP_COMPRESSED (opCode 2012): another message's body
// compressed, with the opCode and the uncompressed size of that message
// (header excluded).
//
// DecodeCompressed's Payload aliases the message it was given.
type Compressed struct {
	Header           Header
	OriginalOpCode   OpCode
	UncompressedSize int32 // bytes of the original message after its header
	CompressorID     CompressorID
	Payload          []byte // compressedMessage
}

// DecodeCompressed decodes msg, a whole OP_COMPRESSED with its header:
// originalOpcode, uncompressedSize, compressorId and the compressed bytes.
// It does not decompress (Decompress does). Errors are *MalformedError.
func DecodeCompressed(msg []byte) (*Compressed, error) {
	h, rest, err := body(msg, OpCompressed)
	if err != nil {
		return nil, err
	}
	if len(rest) < 9 {
		return nil, malformed(OpCompressed, "shorter than its 9 fixed bytes")
	}
	return &Compressed{
		Header:           h,
		OriginalOpCode:   OpCode(int32(binary.LittleEndian.Uint32(rest))),
		UncompressedSize: int32(binary.LittleEndian.Uint32(rest[4:])),
		CompressorID:     CompressorID(rest[8]),
		Payload:          rest[9:],
	}, nil
}

// Append appends c as it goes on the wire to dst (header Length computed,
// opCode OP_COMPRESSED) and returns the result.
func (c *Compressed) Append(dst []byte) []byte {
	start := len(dst)
	dst = AppendHeader(dst, Header{RequestID: c.Header.RequestID, ResponseTo: c.Header.ResponseTo, OpCode: OpCompressed})
	dst = binary.LittleEndian.AppendUint32(dst, uint32(c.OriginalOpCode))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(c.UncompressedSize))
	dst = append(dst, byte(c.CompressorID))
	dst = append(dst, c.Payload...)
	setLength(dst, start)
	return dst
}

// Decompress returns the original message c stands for, header included:
// Length 16+UncompressedSize, c's requestID and responseTo, opCode
// OriginalOpCode, then the decompressed bytes, so DecodeMsg or DecodeQuery
// can read it. The listener inspects this and forwards c's own bytes when
// it rewrites nothing.
//
// maxMessageSize bounds the original message like ReadMessage's (zero or
// less: DefaultMaxMessageSize); a larger uncompressedSize is a *SizeError
// and nothing is decompressed. The output must be exactly uncompressedSize
// bytes (a longer stream is refused once one byte over). An OP_COMPRESSED
// inside an OP_COMPRESSED, an unknown compressorId
// (ErrUnsupportedCompressor) or a corrupt stream is a *MalformedError.
func (c *Compressed) Decompress(maxMessageSize int) ([]byte, error) {
	if maxMessageSize <= 0 {
		maxMessageSize = DefaultMaxMessageSize
	}
	size := int64(c.UncompressedSize)
	if size < 0 || size+HeaderLen > int64(maxMessageSize) {
		return nil, &SizeError{Length: size + HeaderLen, Max: maxMessageSize}
	}
	if c.OriginalOpCode == OpCompressed {
		return nil, malformed(OpCompressed, "originalOpcode is OP_COMPRESSED")
	}
	// Memory follows the bytes actually decompressed, not the size the
	// message claims: a 30-byte message claiming 48 MB costs little.
	dst := make([]byte, 0, HeaderLen+min(size, initialCapacity(len(c.Payload))))
	dst = AppendHeader(dst, Header{Length: int32(HeaderLen + size), RequestID: c.Header.RequestID, ResponseTo: c.Header.ResponseTo, OpCode: c.OriginalOpCode})
	out, err := decompress(dst, int(size), c.CompressorID, c.Payload)
	if err != nil {
		if errors.Is(err, ErrUnsupportedCompressor) {
			return nil, &MalformedError{OpCode: OpCompressed, Reason: fmt.Sprintf("%v %d", ErrUnsupportedCompressor, c.CompressorID), Err: ErrUnsupportedCompressor}
		}
		return nil, malformed(OpCompressed, "%v: %v", c.CompressorID, err)
	}
	return out, nil
}

// initialCapacity guesses the decompressed size from the compressed one
// (BSON commonly compresses 3-10 times); readAppend grows from there.
func initialCapacity(compressed int) int64 { return int64(max(8*compressed, 4096)) }

// Decompress returns msg itself unless it is an OP_COMPRESSED; then the
// original message it stands for (Compressed.Decompress, same errors).
func Decompress(msg []byte, maxMessageSize int) ([]byte, error) {
	h, err := ParseHeader(msg)
	if err != nil || h.OpCode != OpCompressed {
		return msg, err
	}
	c, err := DecodeCompressed(msg)
	if err != nil {
		return nil, err
	}
	return c.Decompress(maxMessageSize)
}

var errSizeMismatch = errors.New("decompressed size is not uncompressedSize")

// decompress appends exactly size decompressed bytes of payload to dst.
func decompress(dst []byte, size int, id CompressorID, payload []byte) ([]byte, error) {
	switch id {
	case CompressorNoop:
		if len(payload) != size {
			return nil, errSizeMismatch
		}
		return append(dst, payload...), nil
	case CompressorSnappy:
		n, err := snappy.DecodedLen(payload)
		if err != nil {
			return nil, err
		}
		if n != size {
			return nil, errSizeMismatch
		}
		start := len(dst)
		dst = slices.Grow(dst, size)[:start+size]
		if _, err := snappy.Decode(dst[start:], payload); err != nil {
			return nil, err
		}
		return dst, nil
	case CompressorZlib:
		r, err := zlib.NewReader(bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		return readAppend(dst, r, size)
	case CompressorZstd:
		d := zstdDecoders.Get().(*zstd.Decoder)
		defer zstdDecoders.Put(d)
		if err := d.Reset(bytes.NewReader(payload)); err != nil {
			return nil, err
		}
		return readAppend(dst, d, size)
	default:
		return nil, ErrUnsupportedCompressor
	}
}

// readAppend appends exactly size bytes from r to dst and checks r has
// nothing more, reading at most one byte past size. dst grows by doubling
// as bytes arrive.
func readAppend(dst []byte, r io.Reader, size int) ([]byte, error) {
	want := len(dst) + size
	for {
		if len(dst) == cap(dst) {
			dst = slices.Grow(dst, min(max(len(dst), 4096), want+1-len(dst)))
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), want+1)])
		dst = dst[:len(dst)+n]
		switch {
		case len(dst) > want:
			return nil, errSizeMismatch
		case err == io.EOF:
			if len(dst) != want {
				return nil, errSizeMismatch
			}
			return dst, nil
		case err != nil:
			return nil, err
		}
	}
}

// zstdDecoders are streaming decoders without goroutines (concurrency 1),
// reused across messages.
var zstdDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
	if err != nil {
		panic(err) // only for invalid options, fixed above
	}
	return d
}}

// zstdEncoder compresses for Compress; EncodeAll is safe for concurrent use.
var zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(8<<20))
	if err != nil {
		panic(err) // only for invalid options, fixed above
	}
	return e
})

// Compress returns msg (a whole message, header included) as an
// OP_COMPRESSED with compressor id and msg's requestID and responseTo.
// Compressors: noop, snappy (block format), zlib (level 6, the drivers'
// default), zstd (default level, 8 MiB window). Errors: a message shorter
// than its header, an unknown id (ErrUnsupportedCompressor).
func Compress(msg []byte, id CompressorID) ([]byte, error) {
	h, err := ParseHeader(msg)
	if err != nil {
		return nil, err
	}
	src := msg[HeaderLen:]
	c := Compressed{Header: h, OriginalOpCode: h.OpCode, UncompressedSize: int32(len(src)), CompressorID: id}
	switch id {
	case CompressorNoop:
		c.Payload = src
	case CompressorSnappy:
		c.Payload = snappy.Encode(nil, src)
	case CompressorZlib:
		var b bytes.Buffer
		w, _ := zlib.NewWriterLevel(&b, 6)
		w.Write(src) // a bytes.Buffer does not fail
		w.Close()
		c.Payload = b.Bytes()
	case CompressorZstd:
		c.Payload = zstdEncoder().EncodeAll(src, nil)
	default:
		return nil, ErrUnsupportedCompressor
	}
	return c.Append(make([]byte, 0, HeaderLen+9+len(c.Payload))), nil
}
