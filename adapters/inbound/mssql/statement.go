package mssql

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/tds"
)

// The canonical bytes of a request are what the fingerprint covers (with
// the login user and the current database, app.Statement.IdentityValues):
//
//   - a SQLBatch: its text as sent;
//   - an RPC that runs a text with values (sp_executesql, sp_prepexec,
//     sp_execute of a handle the listener saw prepared, sp_cursoropen): the
//     parameter declaration, the text and each value's tds.Param.Canonical
//     (its exact TYPE_INFO and bytes) with its name and status flags, so 1
//     and 2 are two statements, as are @a = 1, @b = 2 and @b = 1, @a = 2, and
//     the same values sent again are the same one. sp_executesql,
//     sp_prepexec and sp_execute of the same text and values are the same
//     statement: a driver that was approved on one may resend with another;
//   - an RPC to a named procedure: its name and each parameter's canonical
//     bytes (parameter names included: they bind by name).
//
// Handles are never part of it: they differ per connection.

// canonicalBatch returns the canonical bytes of a SQLBatch text.
func canonicalBatch(text string) []byte { return append([]byte("batch\x00"), text...) }

// displayBatch renders a SQLBatch for the approver.
func displayBatch(text, db string) string { return text + onDatabase(db) }

func onDatabase(db string) string {
	if db == "" {
		return ""
	}
	return "\n-- database: " + db
}

// appendExec appends the canonical bytes of a text run with values.
func appendExec(dst []byte, decl, text string, values []tds.Param) []byte {
	dst = append(dst, "exec\x00"...)
	dst = appendField(dst, []byte(decl))
	dst = appendField(dst, []byte(text))
	for _, v := range values {
		// The name and status too: named values bind by name (@a = 1, @b = 2
		// is not @b = 1, @a = 2) and DEFAULT drops the value sent.
		dst = appendField(dst, []byte(strings.ToLower(v.Name)))
		dst = append(dst, v.Status)
		dst = appendField(dst, v.Canonical())
	}
	return append(dst, 0xFF)
}

// appendProc appends the canonical bytes of a call to a named procedure.
func appendProc(dst []byte, name string, params []tds.Param) []byte {
	dst = append(dst, "proc\x00"...)
	dst = appendField(dst, []byte(strings.ToLower(name)))
	for _, p := range params {
		dst = appendField(dst, []byte(p.Name))
		dst = append(dst, p.Status)
		dst = appendField(dst, p.Canonical())
	}
	return append(dst, 0xFF)
}

func appendField(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// displayExec renders a text run with values for the approver.
func displayExec(text string, values []tds.Param) string {
	shown := make([]string, len(values))
	for i, v := range values {
		shown[i] = renderParam(v)
		if v.Name != "" {
			shown[i] = v.Name + " = " + shown[i]
		}
	}
	return app.WithParameters(text, shown)
}

// displayProc renders a procedure call for the approver, as EXEC.
func displayProc(name string, params []tds.Param) string {
	var b strings.Builder
	b.WriteString("EXEC ")
	b.WriteString(name)
	for i, p := range params {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" ")
		if p.Name != "" {
			b.WriteString(p.Name)
			b.WriteString(" = ")
		}
		b.WriteString(renderParam(p))
		if p.Status&tds.ParamByRef != 0 {
			b.WriteString(" OUTPUT")
		}
	}
	return b.String()
}

// renderParam renders one parameter value as T-SQL-like text: numbers,
// N'…' and '…' strings, 0x… for the rest (cut after 64 bytes).
func renderParam(p tds.Param) string {
	v := p.Value
	if v == nil {
		return "NULL"
	}
	switch p.Type.Type {
	case tds.TypeInt1, tds.TypeInt2, tds.TypeInt4, tds.TypeInt8, tds.TypeIntN:
		if text, ok := numberText(p.Type, v); ok { // the masking's rendering (maskvalue.go)
			return string(text)
		}
	case tds.TypeBit, tds.TypeBitN:
		if len(v) == 1 {
			return strconv.Itoa(int(v[0] & 1))
		}
	case tds.TypeFlt4, tds.TypeFlt8, tds.TypeFltN:
		switch len(v) {
		case 4:
			return strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(v))), 'g', -1, 32)
		case 8:
			return strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(v)), 'g', -1, 64)
		}
	case tds.TypeNVarChar, tds.TypeNChar, tds.TypeNText:
		return "N'" + strings.ReplaceAll(tds.DecodeUCS2(v), "'", "''") + "'"
	case tds.TypeBigVarChar, tds.TypeBigChar, tds.TypeVarChar, tds.TypeChar, tds.TypeText:
		return "'" + strings.ReplaceAll(string(v), "'", "''") + "'"
	}
	if len(v) > 64 {
		return "0x" + hex.EncodeToString(v[:64]) + "…"
	}
	return "0x" + hex.EncodeToString(v)
}
