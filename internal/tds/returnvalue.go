package tds

import "fmt"

// ReturnValue is a RETURNVALUE token (0xAC), MS-TDS 2.2.7.18: an OUTPUT
// parameter's (or a UDF's) value sent back after an RPC. The mssql listener
// reads the prepared-statement handle that sp_prepare and sp_prepexec
// return this way.
type ReturnValue struct {
	Ordinal uint16
	Name    string
	Status  byte
	Type    TypeInfo
	Value   []byte // nil = NULL
}

// DecodeReturnValue parses a RETURNVALUE body (after the token byte, as
// Scanner's Token.Body gives it). Errors: ErrShort, *UnknownTypeError.
func DecodeReturnValue(b []byte) (*ReturnValue, error) {
	r := &reader{b: b}
	v := &ReturnValue{Ordinal: r.u16("ParamOrdinal"), Name: r.bvarchar("ParamName"), Status: r.u8("Status")}
	r.u32("UserType")
	if r.u16("Flags")&FlagEncrypted != 0 {
		return nil, fmt.Errorf("%w: a RETURNVALUE flagged encrypted (Always Encrypted cipher metadata)", ErrCannotFrame)
	}
	if r.err != nil {
		return nil, r.err
	}
	ti, err := decodeResultTypeInfo(r)
	if err != nil {
		return nil, err
	}
	v.Type = ti
	if v.Value, err = readValue(r, ti); err != nil {
		return nil, err
	}
	return v, nil
}
