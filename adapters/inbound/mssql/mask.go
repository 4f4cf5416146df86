package mssql

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/tds"
)

// errMaskWithheld: a result a strict masking rule could not read: 50000,
// state 128, class 16, with masking.UnreadableError's text. The rest of
// that answer's rows are not sent; the connection stays usable.
var errMaskWithheld = sqlError{Number: 50000, State: 128, Class: 16}

// masker rewrites the tokens of one answer under a masking plan: the
// relay feeds it every whole token (token) and sends what it appended to
// out. COLMETADATA gives each column its masking.Field ([table, column],
// the table named only for TEXT, NTEXT and IMAGE columns); a ROW or NBCROW
// with a value to mask is sent again as an NBCROW (its null bitmap can say
// NULL for any type, a fixed-size INT included), every other token as it
// came. Memory is one row at a time.
type masker struct {
	plan     *masking.Plan
	fields   []*masking.Field // per column of the last COLMETADATA; nil: nothing to do
	any      bool             // some field is not nil
	out      []byte           // rewritten bytes not sent yet
	id       byte             // the next packet's PacketID
	withheld error            // set once: the rest of the answer's results are not sent
	attn     bool             // a DONE(ATTN) was passed after withholding: it ends the answer
	blind    bool             // a token over maxCarry: the rest of the answer is dropped unread
}

func newMasker(p *masking.Plan) *masker { return &masker{plan: p, id: 1} }

// token appends what the client gets of t (a whole token sc just framed).
func (m *masker) token(t tds.Token, sc *tds.Scanner) {
	if m.withheld != nil {
		// Only what changes the client's session still goes: the database,
		// the transaction descriptors, a DONE(ATTN) it waits for.
		switch {
		case t.Type == tds.TokenEnvChange:
			m.out = append(m.out, t.Raw...)
		case isDone(t.Type) && binary.LittleEndian.Uint16(t.Body)&tds.DoneAttn != 0:
			m.end()
			m.attn = true
			m.out = append(m.out, t.Raw...)
		}
		return
	}
	switch t.Type {
	case tds.TokenColMetadata:
		if binary.LittleEndian.Uint16(t.Body) != 0xFFFF { // not NoMetadata: sc.Columns are its columns
			m.columns(sc.Columns)
		}
	case tds.TokenRow, tds.TokenNBCRow:
		if m.any {
			m.row(t, sc.Columns)
			return
		}
	case tds.TokenAltRow:
		m.altRow(t, sc)
		if m.withheld != nil {
			return
		}
	case tds.TokenReturnValue:
		m.returnValue(t)
		return
	}
	m.out = append(m.out, t.Raw...)
}

// returnValue masks an OUTPUT parameter's value (RETURNVALUE, MS-TDS
// 2.2.7.18) as a value of a column named after the parameter, without
// its @. The token is sent again with its header as it came and the
// masked value; a value that must become NULL in a type that cannot say
// NULL withholds the result.
func (m *masker) returnValue(t tds.Token) {
	rv, err := tds.DecodeReturnValue(t.Body)
	if err != nil || rv.Value == nil {
		m.out = append(m.out, t.Raw...) // framed by the scanner; NULL
		return
	}
	f := m.plan.Field("", strings.TrimPrefix(rv.Name, "@"))
	if f == nil {
		m.out = append(m.out, t.Raw...)
		return
	}
	out, null, err := maskValue(f, rv.Type, rv.Value)
	if err == nil && null && !nullable(rv.Type) {
		err = errors.New("hoop: the result was withheld: a masked OUTPUT parameter " + rv.Name + " of a type that cannot be sent as NULL")
	}
	if err != nil {
		m.withhold(err)
		return
	}
	if !null && same(out, rv.Value) {
		m.out = append(m.out, t.Raw...)
		return
	}
	if null {
		out = nil
	}
	// ParamOrdinal, ParamName (B_VARCHAR), Status, UserType, Flags, TYPE_INFO.
	head := 2 + 1 + 2*int(t.Body[2]) + 1 + 4 + 2 + len(rv.Type.Raw)
	m.out = append(m.out, tds.TokenReturnValue)
	m.out = append(m.out, t.Body[:head]...)
	m.out = tds.AppendValue(m.out, rv.Type, out)
}

func isDone(t byte) bool {
	return t == tds.TokenDone || t == tds.TokenDoneProc || t == tds.TokenDoneInProc
}

// columns takes the fields of a new result set.
func (m *masker) columns(cols []tds.Column) {
	m.fields, m.any = m.fields[:0], false
	for _, c := range cols {
		table := ""
		if len(c.Table) > 0 {
			table = c.Table[len(c.Table)-1]
		}
		f := m.plan.Field(table, c.Name)
		m.fields = append(m.fields, f)
		m.any = m.any || f != nil
	}
}

// row masks one ROW or NBCROW.
func (m *masker) row(t tds.Token, cols []tds.Column) {
	var row *tds.Row
	var err error
	if t.Type == tds.TokenNBCRow {
		row, _, err = tds.DecodeNBCRow(t.Body, cols)
	} else {
		row, _, err = tds.DecodeRow(t.Body, cols)
	}
	if err != nil { // the scanner framed it: cannot happen
		m.withhold(errors.New("hoop: the result was withheld: a row the masking could not decode"))
		return
	}
	changed := false
	for i, v := range row.Values {
		if v == nil || i >= len(m.fields) || m.fields[i] == nil {
			continue
		}
		out, null, err := maskValue(m.fields[i], cols[i].Type, v)
		if err != nil {
			m.withhold(err)
			return
		}
		if null {
			out = nil
		}
		if null || !same(out, v) {
			row.Values[i], changed = out, true
		}
	}
	if !changed {
		m.out = append(m.out, t.Raw...)
		return
	}
	m.out = row.AppendNBC(m.out, cols)
}

// nullable reports whether a value of type ti can be NULL outside an
// NBCROW: every type but the fixed-size ones (MS-TDS 2.2.5.4.1).
func nullable(ti tds.TypeInfo) bool {
	switch ti.Type {
	case tds.TypeNull, tds.TypeInt1, tds.TypeBit, tds.TypeInt2, tds.TypeInt4, tds.TypeInt8, tds.TypeDateTim4,
		tds.TypeDateTime, tds.TypeFlt4, tds.TypeFlt8, tds.TypeMoney, tds.TypeMoney4:
		return false
	}
	return true
}

// same reports whether a and b are the same bytes in memory (maskValue
// returns its input when nothing changed).
func same(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// altRow decides a COMPUTE row (ALTROW, gone from SQL Server since 2012):
// its values are not read, so a column a rule touches is Unreadable and,
// a masked whole one having no NULL form here, withholds the result too.
func (m *masker) altRow(t tds.Token, sc *tds.Scanner) {
	cols := sc.Alt[binary.LittleEndian.Uint16(t.Body)]
	for _, c := range cols {
		f := m.plan.Field("", c.Name)
		if f == nil {
			continue
		}
		null, err := f.Unreadable("a COMPUTE row (ALTROW)")
		if err == nil && null {
			err = errors.New("hoop: the result was withheld: a masked column in a COMPUTE row (ALTROW), which the listener does not rewrite")
		}
		if err != nil {
			m.withhold(err)
			return
		}
	}
}

// withhold ends the result's rows with the error: the client gets it as an
// ERROR token in place of the row, and nothing else of the answer but
// its ENVCHANGEs and the final DONE (end).
func (m *masker) withhold(err error) {
	if m.withheld != nil {
		return
	}
	m.withheld = err
	m.out = errMaskWithheld.with(err.Error()).token(m.out)
}

// end closes a withheld answer with a DONE flagged DONE_ERROR (at the end
// of the message, or before a DONE(ATTN) that ends it).
func (m *masker) end() {
	if m.withheld != nil && !m.attn {
		m.out = (&tds.Done{Status: tds.DoneError}).Append(m.out)
		m.attn = true // once
	}
}
