package tds

// SQLBatch is the SQLBatch message (packet type 1), MS-TDS 2.2.6.7:
// ALL_HEADERS then the batch text in UCS-2. This codec assumes TDS 7.2 or
// later, where ALL_HEADERS is mandatory.
type SQLBatch struct {
	Headers AllHeaders
	Text    string
}

// DecodeSQLBatch parses a SQLBatch payload. Errors: ErrShort when
// ALL_HEADERS is truncated or claims more bytes than there are.
func DecodeSQLBatch(b []byte) (*SQLBatch, error) {
	h, rest, err := decodeAllHeaders(b)
	if err != nil {
		return nil, err
	}
	return &SQLBatch{Headers: h, Text: DecodeUCS2(rest)}, nil
}

// Encode returns the SQLBatch payload.
func (s *SQLBatch) Encode() []byte {
	return AppendUCS2(s.Headers.append(nil), s.Text)
}
