package tds

import (
	"encoding/binary"
	"fmt"
)

// ALL_HEADERS header types, MS-TDS 2.2.5.3.
const (
	HeaderQueryNotifications    uint16 = 1
	HeaderTransactionDescriptor uint16 = 2
	HeaderTraceActivity         uint16 = 3
)

// StreamHeader is one header of ALL_HEADERS: its type and raw data.
type StreamHeader struct {
	Type uint16
	Data []byte
}

// AllHeaders is the ALL_HEADERS rule that starts SQLBatch and RPC requests
// from TDS 7.2 on (MS-TDS 2.2.5.3).
type AllHeaders struct {
	Headers []StreamHeader
}

// TransactionDescriptor returns the 8-byte transaction descriptor (0 outside
// a transaction) and the outstanding request count of header type 2.
func (h AllHeaders) TransactionDescriptor() (desc uint64, outstanding uint32, ok bool) {
	for _, s := range h.Headers {
		if s.Type == HeaderTransactionDescriptor && len(s.Data) >= 12 {
			return binary.LittleEndian.Uint64(s.Data), binary.LittleEndian.Uint32(s.Data[8:]), true
		}
	}
	return 0, 0, false
}

// TxHeaders returns ALL_HEADERS with just the transaction descriptor header,
// what a client sends on each request.
func TxHeaders(desc uint64, outstanding uint32) AllHeaders {
	d := binary.LittleEndian.AppendUint64(nil, desc)
	d = binary.LittleEndian.AppendUint32(d, outstanding)
	return AllHeaders{Headers: []StreamHeader{{Type: HeaderTransactionDescriptor, Data: d}}}
}

// decodeAllHeaders reads ALL_HEADERS from the start of b and returns the
// rest of b after it.
func decodeAllHeaders(b []byte) (AllHeaders, []byte, error) {
	if len(b) < 4 {
		return AllHeaders{}, nil, short("ALL_HEADERS length")
	}
	total := int(binary.LittleEndian.Uint32(b))
	if total < 4 || total > len(b) {
		return AllHeaders{}, nil, fmt.Errorf("%w: ALL_HEADERS length %d of %d bytes", ErrShort, total, len(b))
	}
	var h AllHeaders
	for p := b[4:total]; len(p) > 0; {
		if len(p) < 6 {
			return AllHeaders{}, nil, short("ALL_HEADERS header")
		}
		n := int(binary.LittleEndian.Uint32(p))
		if n < 6 || n > len(p) {
			return AllHeaders{}, nil, fmt.Errorf("%w: ALL_HEADERS header length %d", ErrShort, n)
		}
		h.Headers = append(h.Headers, StreamHeader{Type: binary.LittleEndian.Uint16(p[4:]), Data: p[6:n]})
		p = p[n:]
	}
	return h, b[total:], nil
}

// append writes ALL_HEADERS to dst.
func (h AllHeaders) append(dst []byte) []byte {
	total := 4
	for _, s := range h.Headers {
		total += 6 + len(s.Data)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(total))
	for _, s := range h.Headers {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(6+len(s.Data)))
		dst = binary.LittleEndian.AppendUint16(dst, s.Type)
		dst = append(dst, s.Data...)
	}
	return dst
}
