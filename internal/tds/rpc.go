package tds

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Well-known procedure ids sent as 0xFFFF + ProcID, MS-TDS 2.2.6.6.
const (
	ProcCursor          uint16 = 1
	ProcCursorOpen      uint16 = 2
	ProcCursorPrepare   uint16 = 3
	ProcCursorExecute   uint16 = 4
	ProcCursorPrepExec  uint16 = 5
	ProcCursorUnprepare uint16 = 6
	ProcCursorFetch     uint16 = 7
	ProcCursorOption    uint16 = 8
	ProcCursorClose     uint16 = 9
	ProcExecuteSQL      uint16 = 10
	ProcPrepare         uint16 = 11
	ProcExecute         uint16 = 12
	ProcPrepExec        uint16 = 13
	ProcPrepExecRPC     uint16 = 14
	ProcUnprepare       uint16 = 15
)

// RPC batch separators of TDS 7.2 on (MS-TDS 2.2.6.6), and TDS 7.1's batch
// flag, which from 7.2 on is also the length byte of a 128-character
// parameter name: the codec refuses it (UnreadableError).
const (
	rpcBatchFlag   byte = 0xFF
	rpcNoExecFlag  byte = 0xFE
	rpcBatchFlag71 byte = 0x80
)

// Parameter status flags, MS-TDS 2.2.6.6. Any other bit (fEncrypted 0x08,
// the reserved ones) is refused: an encrypted parameter carries cipher
// metadata after its value, which this codec does not read.
const (
	ParamByRef   byte = 0x01
	ParamDefault byte = 0x02
)

// Param is one RPC parameter: name (may be empty), status flags, TYPE_INFO
// and value (nil = NULL; PLP chunks joined).
type Param struct {
	Name   string
	Status byte
	Type   TypeInfo
	Value  []byte
	// UnknownLen: a PLP value sent with PLP_UNKNOWN_LEN (kept so Encode
	// reproduces it; chunk boundaries are not kept, Encode sends one chunk).
	UnknownLen bool
}

// Canonical returns the bytes a fingerprint hashes for this parameter: the
// exact TYPE_INFO, a NULL marker, and the value. Two sends of the same
// typed value give the same bytes.
func (p Param) Canonical() []byte {
	out := append([]byte(nil), p.Type.Raw...)
	if p.Value == nil {
		return append(out, 0)
	}
	out = append(out, 1)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(p.Value)))
	return append(out, p.Value...)
}

// RPCCall is one RPCReqBatch: a procedure by name or by ProcID, option
// flags, parameters.
type RPCCall struct {
	ProcName string // empty when ProcID is used
	ProcID   uint16
	Options  uint16
	Params   []Param
}

// RPC is the RPC request message (packet type 3), MS-TDS 2.2.6.6:
// ALL_HEADERS then one or more calls. Separator is the byte written between
// calls (0xFF unless decoded otherwise: the last separator read).
type RPC struct {
	Headers   AllHeaders
	Calls     []RPCCall
	Separator byte
}

// DecodeRPC parses an RPC payload (TDS 7.2+). Errors: ErrShort for a
// truncated call, *UnknownTypeError for a parameter type this codec does not
// decode (TVP, UDT…), *UnreadableError for bytes the server may frame
// otherwise: the listener refuses such a request.
func DecodeRPC(b []byte) (*RPC, error) {
	h, rest, err := decodeAllHeaders(b)
	if err != nil {
		return nil, err
	}
	m := &RPC{Headers: h, Separator: rpcBatchFlag}
	r := &reader{b: rest}
	for {
		var c RPCCall
		n := r.u16("NameLenProcID")
		if n == 0xFFFF {
			c.ProcID = r.u16("ProcID")
		} else {
			c.ProcName = DecodeUCS2(r.bytes(2*int(n), "ProcName"))
		}
		c.Options = r.u16("OptionFlags")
		if r.err != nil {
			return nil, r.err
		}
		for r.left() > 0 && r.b[r.off] != rpcBatchFlag && r.b[r.off] != rpcNoExecFlag {
			if r.b[r.off] == rpcBatchFlag71 {
				return nil, &UnreadableError{Why: "a byte 0x80 where a parameter starts (TDS 7.1's batch separator, or a 128-character parameter name)"}
			}
			var p Param
			p.Name = r.bvarchar("ParamName")
			p.Status = r.u8("StatusFlags")
			if r.err != nil {
				return nil, r.err
			}
			if p.Status&^(ParamByRef|ParamDefault) != 0 {
				return nil, &UnreadableError{Why: fmt.Sprintf("parameter %q has status flags 0x%02X (encrypted or reserved)", p.Name, p.Status)}
			}
			if p.Type, err = decodeTypeInfo(r); err != nil {
				return nil, err
			}
			r.plpUnknown = false
			if p.Value, err = readParamValue(r, p.Type); err != nil {
				return nil, err
			}
			p.UnknownLen = r.plpUnknown && p.Value != nil
			c.Params = append(c.Params, p)
		}
		m.Calls = append(m.Calls, c)
		if r.left() == 0 {
			return m, nil
		}
		m.Separator = r.u8("BatchFlag")
		if r.left() == 0 { // a trailing separator ends the batch
			return m, nil
		}
	}
}

// Encode returns the RPC payload.
func (m *RPC) Encode() []byte {
	out := m.Headers.append(nil)
	sep := m.Separator
	if sep == 0 {
		sep = rpcBatchFlag
	}
	for i, c := range m.Calls {
		if i > 0 {
			out = append(out, sep)
		}
		if c.ProcName == "" {
			out = binary.LittleEndian.AppendUint16(out, 0xFFFF)
			out = binary.LittleEndian.AppendUint16(out, c.ProcID)
		} else {
			out = appendUSVarchar(out, c.ProcName)
		}
		out = binary.LittleEndian.AppendUint16(out, c.Options)
		for _, p := range c.Params {
			out = appendBVarchar(out, p.Name)
			out = append(out, p.Status)
			out = p.Type.Append(out)
			out = appendParamValue(out, p.Type, p.Value, p.UnknownLen)
		}
	}
	return out
}

// Proc returns the well-known procedure id of the call, resolving a call by
// name ("sp_executesql", "master..sp_prepare", any case) to its id; 0 when
// the procedure is not one of them.
func (c RPCCall) Proc() uint16 {
	if c.ProcName == "" {
		return c.ProcID
	}
	name := strings.ToLower(c.ProcName)
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	switch name {
	case "sp_executesql":
		return ProcExecuteSQL
	case "sp_prepare":
		return ProcPrepare
	case "sp_execute":
		return ProcExecute
	case "sp_prepexec":
		return ProcPrepExec
	case "sp_unprepare":
		return ProcUnprepare
	case "sp_prepexecrpc":
		return ProcPrepExecRPC
	case "sp_cursorprepare":
		return ProcCursorPrepare
	case "sp_cursorprepexec":
		return ProcCursorPrepExec
	case "sp_cursoropen":
		return ProcCursorOpen
	}
	return 0
}

// Statement returns the T-SQL text the call carries and the parameters that
// are values for it, per the procedures' signatures: sp_executesql(@stmt,
// @params, values…), sp_prepare(@handle OUT, @params, @stmt, @options),
// sp_prepexec(@handle OUT, @params, @stmt, values…), sp_cursoropen(@cursor
// OUT, @stmt, @scrollopt, @ccopt, @rowcount, @paramdef, values…: every
// parameter after @stmt is returned as a value, since each changes what
// runs). SQL Server binds these procedures' leading parameters by position,
// whatever name they carry ("arguments for extended stored procedures must
// be entered in the specific order", its docs of sp_executesql and
// sp_execute), so names are not read here: a driver may name them as it
// likes (tedious sends @statement), and a value of the statement's own may
// be called @params or @handle. ok is false when the call carries no text
// (sp_execute, sp_unprepare, a named user procedure) or the text parameter
// is not a character type, or not Unicode and not ASCII.
func (c RPCCall) Statement() (text string, values []Param, ok bool) {
	idx, first := -1, 0
	switch c.Proc() {
	case ProcExecuteSQL:
		idx, first = 0, 2
	case ProcPrepare, ProcCursorPrepare:
		idx, first = 2, len(c.Params)
	case ProcPrepExec:
		idx, first = 2, 3
	case ProcCursorOpen:
		idx, first = 1, 2
	default:
		return "", nil, false
	}
	if idx >= len(c.Params) {
		return "", nil, false
	}
	p := c.Params[idx]
	switch p.Type.Type {
	case TypeNVarChar, TypeNChar, TypeNText:
		text = DecodeUCS2(p.Value)
	case TypeBigVarChar, TypeBigChar, TypeText, TypeVarChar, TypeChar:
		// A code page of the collation's: only ASCII reads the same in
		// every one (in Shift-JIS or Big5 a byte ']' or '[' may end a
		// two-byte character, and the server would read the text otherwise).
		for _, b := range p.Value {
			if b >= 0x80 {
				return "", nil, false
			}
		}
		text = string(p.Value)
	default:
		return "", nil, false
	}
	if first < len(c.Params) {
		values = c.Params[first:]
	}
	return text, values, true
}
