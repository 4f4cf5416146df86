package tdstest

import (
	"encoding/binary"

	"github.com/hoophq/sidecar/internal/tds"
)

// Error returns an ERROR token with the given number, class and text.
func Error(number int32, class byte, msg string) []byte {
	e := &tds.ErrorInfo{Number: number, State: 1, Class: class, Message: msg, ServerName: "tdstest", Line: 1}
	return e.Append(nil, tds.TokenError)
}

// IntColumn is a nullable INTN(4) column named name.
func IntColumn(name string) tds.Column {
	return tds.Column{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeIntN, Size: 4}, Name: name}
}

// NVarCharColumn is a nullable NVARCHAR(4000) column with the default
// Latin1_General_CI_AS collation.
func NVarCharColumn(name string) tds.Column {
	return tds.Column{Flags: 1, Type: tds.TypeInfo{Type: tds.TypeNVarChar, Size: 8000,
		Collation: [5]byte{0x09, 0x04, 0xD0, 0x00, 0x34}}, Name: name}
}

// Int4 is the INTN(4) value of v.
func Int4(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

// NVarChar is the NVARCHAR value of s.
func NVarChar(s string) []byte { return tds.AppendUCS2(nil, s) }

// ResultSet returns COLMETADATA, one ROW per row, and a DONE-family token
// with DoneCount and the row count (done is TokenDone, TokenDoneInProc…;
// more adds DoneMore).
func ResultSet(cols []tds.Column, rows [][][]byte, done byte, more bool) []byte {
	out := ResultSetNoDone(cols, rows)
	st := tds.DoneCount
	if more {
		st |= tds.DoneMore
	}
	return (&tds.Done{Token: done, Status: st, RowCount: uint64(len(rows))}).Append(out)
}

// ProcEnd returns RETURNSTATUS 0 and a final DONEPROC, how a server ends an
// RPC answer.
func ProcEnd() []byte {
	out := []byte{tds.TokenReturnStatus, 0, 0, 0, 0}
	return (&tds.Done{Token: tds.TokenDoneProc}).Append(out)
}
