package grpclistener

import (
	"errors"
	"strings"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// headerBlock is one decoded HEADERS block (with its CONTINUATION frames)
// of a side: what http2.Framer's ReadMetaHeaders would give as a
// MetaHeadersFrame, read into buffers the side reuses, so that a call's
// three header blocks allocate neither a frame nor a field slice. Its
// fields are valid until the side's next read: a caller that keeps them
// copies them.
type headerBlock struct {
	id        uint32
	ended     bool   // END_STREAM
	truncated bool   // over the side's MaxHeaderListSize: fields stop short
	fields    fields // in the order sent, pseudo-headers first

	dec      *hpack.Decoder
	remain   uint32 // header list bytes left (trailer: remainT)
	remainT  uint32
	regular  bool  // a regular field was seen
	invalid  error // a malformed field: the stream is reset
	maxBytes uint32
}

// newHeaderBlock returns the block a side decodes into, with an HPACK
// decoder of the side's connection and header lists of at most maxBytes.
func newHeaderBlock(maxBytes uint32) *headerBlock {
	b := &headerBlock{maxBytes: maxBytes}
	b.dec = hpack.NewDecoder(headerTable, b.emit)
	b.dec.SetMaxStringLength(int(maxBytes))
	return b
}

// emit takes one decoded field, with the checks of http2.Framer's
// readMetaFrame: a malformed value or name, or a pseudo-header after a
// regular field, makes the block invalid; past the size limit the block
// is truncated.
func (b *headerBlock) emit(hf hpack.HeaderField) {
	if !httpguts.ValidHeaderFieldValue(hf.Value) {
		b.invalid = errors.New("invalid header field value for " + hf.Name)
	}
	if strings.HasPrefix(hf.Name, ":") {
		if b.regular {
			b.invalid = errors.New("pseudo header field after regular")
		}
	} else {
		b.regular = true
		if !validWireName(hf.Name) {
			b.invalid = errors.New("invalid header field name " + hf.Name)
		}
	}
	if b.invalid != nil {
		b.dec.SetEmitEnabled(false)
		return
	}
	remain, size := &b.remain, hf.Size()
	if hf.Name == "trailer" { // counted as readMetaFrame counts it
		n := strings.Count(hf.Value, ",") + 1
		remain, size = &b.remainT, uint32(len(hf.Value)-n+1)+uint32(n)*hpack.HeaderField{}.Size()
	}
	if size > *remain {
		b.dec.SetEmitEnabled(false)
		b.truncated = true
		b.remain, b.remainT = 0, 0
		return
	}
	*remain -= size
	b.fields = append(b.fields, hf)
}

// read decodes the block that the HEADERS frame with header fh and block
// fragment frag starts, reading its CONTINUATION frames from fr. Errors
// are those of ReadMetaHeaders: a connection error for an undecodable or
// oversized block, a stream error (PROTOCOL_ERROR) for malformed fields.
func (b *headerBlock) read(fr *http2.Framer, fh http2.FrameHeader, frag []byte) error {
	b.id, b.ended, b.truncated = fh.StreamID, fh.Flags.Has(http2.FlagHeadersEndStream), false
	b.fields, b.regular, b.invalid = b.fields[:0], false, nil
	b.remain, b.remainT = b.maxBytes, b.maxBytes
	b.dec.SetEmitEnabled(true)
	done := fh.Flags.Has(http2.FlagHeadersEndHeaders)
	for {
		if int64(len(frag)) > 2*int64(b.remain+b.remainT) || b.invalid != nil {
			return http2.ConnectionError(http2.ErrCodeProtocol)
		}
		if _, err := b.dec.Write(frag); err != nil {
			return http2.ConnectionError(http2.ErrCodeCompression)
		}
		if done {
			break
		}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		cf := f.(*http2.ContinuationFrame) // the Framer checks the frame order
		frag, done = cf.HeaderBlockFragment(), cf.HeadersEnded()
	}
	if err := b.dec.Close(); err != nil {
		return http2.ConnectionError(http2.ErrCodeCompression)
	}
	if b.invalid == nil {
		b.invalid = checkPseudos(b.fields)
	}
	if b.invalid != nil {
		return http2.StreamError{StreamID: b.id, Code: http2.ErrCodeProtocol, Cause: b.invalid}
	}
	return nil
}

// checkPseudos refuses unknown or repeated pseudo-headers, and a block with
// both request and response ones (as http2.MetaHeadersFrame does).
func checkPseudos(f fields) error {
	var request, response bool
	for i, hf := range f {
		if !strings.HasPrefix(hf.Name, ":") {
			break
		}
		switch hf.Name {
		case ":method", ":path", ":scheme", ":authority", ":protocol":
			request = true
		case ":status":
			response = true
		default:
			return errors.New("invalid pseudo-header " + hf.Name)
		}
		for _, prev := range f[:i] {
			if prev.Name == hf.Name {
				return errors.New("duplicate pseudo-header " + hf.Name)
			}
		}
	}
	if request && response {
		return errors.New("mix of request and response pseudo headers")
	}
	return nil
}

// validWireName reports whether name is an HTTP/2 field name: a token
// without uppercase letters.
func validWireName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !httpguts.IsTokenRune(r) || 'A' <= r && r <= 'Z' {
			return false
		}
	}
	return true
}
