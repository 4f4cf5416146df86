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
// ENVCHANGE, ERROR/INFO and DONE boundaries. It frames every token of TDS
// 7.4 a server sends (OFFSET, ALTMETADATA and ALTROW included), in a
// session without column encryption. Its state is exported: Columns is the
// last COLMETADATA seen and Alt the ALTMETADATA columns by Id (ROW, NBCROW
// and ALTROW framing depends on them); Features is what the server
// acknowledged at login, which changes how some tokens are laid out.
type Scanner struct {
	Columns  []Column
	Alt      map[uint16][]Column
	Features Features
}

// Features is what the server's FEATUREEXTACK (MS-TDS 2.2.7.11) at login
// acknowledged of the features that change the token stream.
type Features struct {
	// DataClassification is the DATACLASSIFICATION version acknowledged
	// (DataClassV1 or DataClassV2), 0 when none.
	DataClassification byte
	// ColumnEncryption is set when the server acknowledged COLUMNENCRYPTION:
	// COLMETADATA then carries a CekTable, which this codec does not read.
	ColumnEncryption bool
}

// Reset forgets the result set (Columns, Alt) at the end of a response,
// keeping the login's Features.
func (s *Scanner) Reset() { *s = Scanner{Features: s.Features} }

// Next returns the first token of b. Errors: ErrShort when b ends inside
// the token (read more and retry); ErrCannotFrame (wrapped) for a byte that
// starts no token of TDS 7.4, a column type or layout this codec does not
// read (an encrypted column, a CekTable), a DATACLASSIFICATION the login
// did not negotiate, an ALTROW of no ALTMETADATA; any other error for
// bytes that break a token's layout. On any error but ErrShort the stream
// cannot be framed further: the caller must stop reading it.
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
	case TokenOffset:
		n = offsetLen
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
		fs, err := decodeFeatures(body)
		if err != nil {
			return Token{}, err
		}
		f, err := ackedFeatures(s.Features, fs)
		if err != nil {
			return Token{}, err
		}
		s.Features = f
		n = featuresLen(body)
	case TokenColMetadata:
		if s.Features.ColumnEncryption {
			return Token{}, fmt.Errorf("%w: COLMETADATA with a CekTable (column encryption)", ErrCannotFrame)
		}
		cm, used, err := DecodeColMetadata(body)
		if err != nil {
			return Token{}, frameErr(err)
		}
		if !cm.NoMetadata {
			s.Columns, s.Alt = cm.Columns, nil
		}
		n = used
	case TokenAltMetadata:
		am, used, err := DecodeAltMetadata(body)
		if err != nil {
			return Token{}, frameErr(err)
		}
		if s.Alt == nil {
			s.Alt = map[uint16][]Column{}
		}
		s.Alt[am.ID] = am.columns()
		n = used
	case TokenAltRow:
		if len(body) < 2 {
			return Token{}, short("ALTROW Id")
		}
		cols, ok := s.Alt[binary.LittleEndian.Uint16(body)]
		if !ok {
			return Token{}, fmt.Errorf("%w: ALTROW of Id %d follows no ALTMETADATA of that Id", ErrCannotFrame, binary.LittleEndian.Uint16(body))
		}
		used, err := RowLen(body[2:], cols, false)
		if err != nil {
			return Token{}, frameErr(err)
		}
		n = 2 + used
	case TokenDataClassif:
		if s.Features.DataClassification == 0 {
			return Token{}, fmt.Errorf("%w: DATACLASSIFICATION the login did not negotiate", ErrCannotFrame)
		}
		_, used, err := DecodeDataClassification(body, s.Features.DataClassification)
		if err != nil {
			return Token{}, err
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

// ackedFeatures returns f updated with the server's FEATUREEXTACK entries.
// A DATACLASSIFICATION version this codec does not read is ErrCannotFrame:
// its tokens could not be framed.
func ackedFeatures(f Features, fs []Feature) (Features, error) {
	for _, a := range fs {
		switch a.ID {
		case FeatureDataClassif:
			if len(a.Data) < 1 || a.Data[0] != DataClassV1 && a.Data[0] != DataClassV2 {
				return f, fmt.Errorf("%w: the server acknowledged DATACLASSIFICATION in a version this codec does not read (%x)", ErrCannotFrame, a.Data)
			}
			f.DataClassification = a.Data[0]
		case FeatureColumnEncryption:
			f.ColumnEncryption = true
		}
	}
	return f, nil
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
	if r.u16("Flags")&FlagEncrypted != 0 {
		return 0, fmt.Errorf("%w: a RETURNVALUE flagged encrypted (Always Encrypted cipher metadata)", ErrCannotFrame)
	}
	if r.err != nil {
		return 0, r.err
	}
	ti, err := decodeResultTypeInfo(r)
	if err != nil {
		return 0, err
	}
	if _, err := readValue(r, ti); err != nil {
		return 0, err
	}
	return r.off, nil
}
