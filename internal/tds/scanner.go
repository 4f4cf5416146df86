package tds

import (
	"encoding/binary"
	"fmt"
)

// Token is one token found by the Scanner: its type and its bytes (Raw,
// token byte included; Body, after the token byte and any length prefix).
type Token struct {
	Type byte
	Raw  []byte
	Body []byte
}

// Scanner walks a server's token stream (MS-TDS 2.2.7) far enough to find
// ENVCHANGE, ERROR/INFO and DONE boundaries. Columns is the last COLMETADATA
// seen; it is the only state and it is exported: ROW/NBCROW framing depends
// on it, and a response may span messages.
type Scanner struct {
	Columns []Column
}

// Next returns the first token of b. Errors: ErrShort when b ends inside
// the token (read more and retry), ErrCannotFrame (wrapped) for a token or
// column type whose length this codec cannot compute — the caller must stop
// scanning this response.
func (s *Scanner) Next(b []byte) (Token, error) {
	if len(b) == 0 {
		return Token{}, short("token")
	}
	t := b[0]
	body := b[1:]
	le := binary.LittleEndian
	var n, hdr int
	switch t {
	case TokenDone, TokenDoneProc, TokenDoneInProc:
		n = doneLen
	case TokenReturnStatus:
		n = 4
	case TokenError, TokenInfo, TokenLoginAck, TokenEnvChange, TokenOrder, TokenTabName, TokenColInfo, TokenSSPI:
		if len(body) < 2 {
			return Token{}, short("token length")
		}
		hdr, n = 2, int(le.Uint16(body))
	case TokenFedAuthInfo, TokenSessionState:
		if len(body) < 4 {
			return Token{}, short("token length")
		}
		hdr, n = 4, int(le.Uint32(body))
		if n < 0 || n > len(body) {
			return Token{}, short("token body")
		}
	case TokenFeatureExtAck:
		if _, err := decodeFeatures(body); err != nil {
			return Token{}, err
		}
		n = featuresLen(body)
	case TokenColMetadata:
		cm, used, err := DecodeColMetadata(body)
		if err != nil {
			return Token{}, frameErr(err)
		}
		if !cm.NoMetadata {
			s.Columns = cm.Columns
		}
		n = used
	case TokenRow, TokenNBCRow:
		used, err := RowLen(body, s.Columns, t == TokenNBCRow)
		if err != nil {
			return Token{}, frameErr(err)
		}
		n = used
	case TokenReturnValue:
		used, err := returnValueLen(body)
		if err != nil {
			return Token{}, frameErr(err)
		}
		n = used
	default:
		return Token{}, fmt.Errorf("%w: token 0x%02X", ErrCannotFrame, t)
	}
	if hdr+n > len(body) {
		return Token{}, short("token body")
	}
	return Token{Type: t, Raw: b[:1+hdr+n], Body: body[hdr : hdr+n]}, nil
}

func frameErr(err error) error {
	if u, ok := err.(*UnknownTypeError); ok {
		return fmt.Errorf("%w: %v", ErrCannotFrame, u)
	}
	return err
}

func featuresLen(b []byte) int {
	i := 0
	for i < len(b) && b[i] != FeatureTerminator {
		i += 5 + int(binary.LittleEndian.Uint32(b[i+1:]))
	}
	return i + 1
}

// returnValueLen frames RETURNVALUE (MS-TDS 2.2.7.18).
func returnValueLen(b []byte) (int, error) {
	r := &reader{b: b}
	r.u16("ParamOrdinal")
	r.bvarchar("ParamName")
	r.u8("Status")
	r.u32("UserType")
	r.u16("Flags")
	if r.err != nil {
		return 0, r.err
	}
	ti, err := decodeTypeInfo(r)
	if err != nil {
		return 0, err
	}
	if _, err := readValue(r, ti); err != nil {
		return 0, err
	}
	return r.off, nil
}
