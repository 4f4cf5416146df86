package tds

import "encoding/binary"

// ENVCHANGE types, MS-TDS 2.2.7.9.
const (
	EnvDatabase        byte = 1
	EnvLanguage        byte = 2
	EnvCharset         byte = 3
	EnvPacketSize      byte = 4
	EnvSortLocale      byte = 5
	EnvSortFlags       byte = 6
	EnvCollation       byte = 7
	EnvBeginTran       byte = 8
	EnvCommitTran      byte = 9
	EnvRollbackTran    byte = 10
	EnvEnlistDTC       byte = 11
	EnvDefectTran      byte = 12
	EnvMirrorPartner   byte = 13
	EnvPromoteTran     byte = 15
	EnvTranManagerAddr byte = 16
	EnvTranEnded       byte = 17
	EnvResetConnAck    byte = 18
	EnvUserInstance    byte = 19
	EnvRouting         byte = 20
)

// EnvChange is one ENVCHANGE token (0xE3), MS-TDS 2.2.7.9. NewValue and
// OldValue are the raw values: UCS-2 bytes for the character types
// (database, language, packet size, …; see NewString), the bytes of a
// B_VARBYTE for the others (collation, transaction descriptors). Routing
// (type 20) and promote (15) keep their whole body in NewValue.
type EnvChange struct {
	Type     byte
	NewValue []byte
	OldValue []byte
}

func envIsString(t byte) bool {
	switch t {
	case EnvDatabase, EnvLanguage, EnvCharset, EnvPacketSize, EnvSortLocale, EnvSortFlags, EnvMirrorPartner, EnvUserInstance:
		return true
	}
	return false
}

// DecodeEnvChange parses an ENVCHANGE token body (after the token byte and
// the USHORT length).
func DecodeEnvChange(b []byte) (*EnvChange, error) {
	r := &reader{b: b}
	e := &EnvChange{Type: r.u8("ENVCHANGE type")}
	switch {
	case envIsString(e.Type):
		e.NewValue = r.bytes(2*int(r.u8("new length")), "new value")
		e.OldValue = r.bytes(2*int(r.u8("old length")), "old value")
	case e.Type == EnvRouting || e.Type == EnvPromoteTran:
		e.NewValue = r.bytes(r.left(), "value")
	default:
		e.NewValue = r.bytes(int(r.u8("new length")), "new value")
		e.OldValue = r.bytes(int(r.u8("old length")), "old value")
	}
	if r.err != nil {
		return nil, r.err
	}
	return e, nil
}

// NewString returns NewValue decoded from UCS-2 (for the character types).
func (e *EnvChange) NewString() string { return DecodeUCS2(e.NewValue) }

// OldString returns OldValue decoded from UCS-2.
func (e *EnvChange) OldString() string { return DecodeUCS2(e.OldValue) }

// EnvString builds a character-type ENVCHANGE (database, language, packet
// size as decimal text).
func EnvString(typ byte, newValue, oldValue string) *EnvChange {
	return &EnvChange{Type: typ, NewValue: AppendUCS2(nil, newValue), OldValue: AppendUCS2(nil, oldValue)}
}

// Append writes the whole token to dst.
func (e *EnvChange) Append(dst []byte) []byte {
	body := []byte{e.Type}
	switch {
	case envIsString(e.Type):
		body = append(body, byte(len(e.NewValue)/2))
		body = append(body, e.NewValue...)
		body = append(body, byte(len(e.OldValue)/2))
		body = append(body, e.OldValue...)
	case e.Type == EnvRouting || e.Type == EnvPromoteTran:
		body = append(body, e.NewValue...)
	default:
		body = append(body, byte(len(e.NewValue)))
		body = append(body, e.NewValue...)
		body = append(body, byte(len(e.OldValue)))
		body = append(body, e.OldValue...)
	}
	return appendUSToken(dst, TokenEnvChange, body)
}

// Descriptor returns the 8-byte transaction descriptor of a begin, commit,
// rollback, enlist or defect ENVCHANGE: the new one for EnvBeginTran (and
// enlist/defect), the ended one for commit/rollback. Requests carry the
// current descriptor in ALL_HEADERS (TxHeaders), 0 outside a transaction.
func (e *EnvChange) Descriptor() (uint64, bool) {
	v := e.NewValue
	if e.Type == EnvCommitTran || e.Type == EnvRollbackTran || e.Type == EnvTranEnded {
		v = e.OldValue
	}
	switch e.Type {
	case EnvBeginTran, EnvCommitTran, EnvRollbackTran, EnvEnlistDTC, EnvDefectTran, EnvTranEnded:
		if len(v) == 8 {
			return binary.LittleEndian.Uint64(v), true
		}
	}
	return 0, false
}
