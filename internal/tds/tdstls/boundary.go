package tdstls

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/hoophq/sidecar/internal/tds"
)

// firstMessage follows the TDS packet headers (MS-TDS 2.2.3.1) of a byte
// stream to find where its first message ends: the end of the first packet
// whose status has EOM. Login-only encryption switches from TLS to clear
// at exactly that byte.
type firstMessage struct {
	hdr    [tds.HeaderLen]byte
	hdrN   int
	remain int  // body bytes left in the current packet
	eom    bool // the current packet ends the message
	done   bool
}

// next returns how many bytes may pass before the state changes (0 when
// the first message is complete).
func (f *firstMessage) next() int {
	switch {
	case f.done:
		return 0
	case f.hdrN < tds.HeaderLen:
		return tds.HeaderLen - f.hdrN
	}
	return f.remain
}

// consume takes b (len(b) ≤ next()). Errors: a packet length below the
// header size (wrapped ErrBadPacket).
func (f *firstMessage) consume(b []byte) error {
	if f.hdrN < tds.HeaderLen {
		f.hdrN += copy(f.hdr[f.hdrN:], b)
		if f.hdrN < tds.HeaderLen {
			return nil
		}
		n := int(binary.BigEndian.Uint16(f.hdr[2:]))
		if n < tds.HeaderLen {
			return fmt.Errorf("%w: packet length %d under TLS", ErrBadPacket, n)
		}
		f.remain, f.eom = n-tds.HeaderLen, f.hdr[1]&tds.StatusEOM != 0
	} else {
		f.remain -= len(b)
	}
	if f.remain == 0 {
		f.hdrN = 0
		f.done = f.eom
	}
	return nil
}

// Largest TLS record on the wire: 2^14 plaintext plus the expansion TLS 1.2
// allows (RFC 5246 6.2.3: 2048), 5-byte header.
const (
	recordHeaderLen = 5
	maxRecordLen    = 1<<14 + 2048
)

// recordReader reads TLS records from R one at a time and never past the
// end of the current record (RFC 8446 5.1 / RFC 5246 6.2 framing: type,
// version, 16-bit length), so a tls.Conn reading through it buffers no byte
// that follows the record it needs. Login-only encryption relies on that:
// the clear messages after LOGIN7 stay on the socket.
type recordReader struct {
	R      io.Reader
	hdr    [recordHeaderLen]byte
	hdrN   int
	remain int
}

func (r *recordReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if r.remain == 0 {
		n, err := r.R.Read(b[:min(len(b), recordHeaderLen-r.hdrN)])
		copy(r.hdr[r.hdrN:], b[:n])
		r.hdrN += n
		if r.hdrN == recordHeaderLen {
			r.hdrN = 0
			r.remain = int(binary.BigEndian.Uint16(r.hdr[3:]))
			if r.remain > maxRecordLen {
				return n, fmt.Errorf("%w: TLS record of %d bytes", ErrBadPacket, r.remain)
			}
		}
		return n, err
	}
	n, err := r.R.Read(b[:min(len(b), r.remain)])
	r.remain -= n
	return n, err
}
