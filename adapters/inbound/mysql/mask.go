package mysql

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/domain/masking"
)

// rowMasker rewrites the rows of one statement's results under its masking
// plan (app.MaskPlan; docs/mysql-listener.md, "Masking"): one row at a
// time, so a result of any length streams with the memory of its largest
// row. It is made only when the listener has a masking rule that applies.
type rowMasker struct {
	plan   *masking.Plan
	binary bool // rows are in the binary protocol (COM_STMT_EXECUTE, COM_STMT_FETCH)
	cols   []maskCol
	any    bool // some column of the current result set has a Field
	// withheld is the error a strict rule refused the result with; once
	// set, the rest of the answer is read and dropped.
	withheld           error
	in, out, text, num []byte // reused between rows
}

// maskCol is one column of the current result set.
type maskCol struct {
	field    *masking.Field // nil: sent unread
	typ      byte
	unsigned bool
	cs       valueCharset
}

// errMalformedRow is a row that does not match its column definitions.
var errMalformedRow = wire.Errorf("upstream sent a row that does not match its column definitions")

// start begins a result set: its columns come next.
func (m *rowMasker) start() { m.cols, m.any = m.cols[:0], false }

// column adds the column whose ColumnDefinition41 payload is p. Its values
// are masked by a column rule that names the column as the query wrote it
// (table alias, column alias) or as it is stored (org_table, org_name),
// else by the entities found in them.
func (m *rowMasker) column(p []byte) error {
	c, ok := wire.ParseColumn(p)
	if !ok {
		return wire.Errorf("upstream sent a bad column definition")
	}
	f := m.plan.Field(c.Table, c.Name)
	if !f.Whole() && (c.OrgTable != c.Table || c.OrgName != c.Name) {
		if g := m.plan.Field(c.OrgTable, c.OrgName); g.Whole() || f == nil {
			f = g
		}
	}
	m.any = m.any || f != nil
	m.cols = append(m.cols, maskCol{field: f, typ: c.Type, unsigned: c.Flags&32 != 0, cs: charsetOfCollation(c.Charset)})
	return nil
}

// row returns row payload p with its values masked: p itself when no
// column has a Field. The error is an *masking.UnreadableError when a
// strict rule could not read a value (the result is withheld), or a
// *wire.Error when p is not a row of the current columns.
func (m *rowMasker) row(p []byte) ([]byte, error) {
	if !m.any {
		return p, nil
	}
	var out []byte
	var err error
	if m.binary {
		out, err = m.binaryRow(p)
	} else {
		out, err = m.textRow(p)
	}
	if err == nil && len(out) >= wire.MaxPayload {
		return nil, m.unreadable("the masked row would be 16 MiB or more")
	}
	m.out = out
	return out, err
}

// textRow masks a text-protocol row: each value a length-encoded string,
// or 0xfb for NULL.
func (m *rowMasker) textRow(p []byte) ([]byte, error) {
	out := m.out[:0]
	for i := range m.cols {
		if len(p) == 0 {
			return nil, errMalformedRow
		}
		if p[0] == 0xfb {
			out, p = append(out, 0xfb), p[1:]
			continue
		}
		v, rest, ok := wire.LenencString(p)
		if !ok {
			return nil, errMalformedRow
		}
		c := &m.cols[i]
		if c.field == nil {
			out, p = append(out, p[:len(p)-len(rest)]...), rest
			continue
		}
		p = rest
		var nv []byte
		null, err := false, error(nil)
		if isText(c.typ) {
			nv, null, err = m.maskText(c, v)
		} else {
			m.num = textOfValue(c, v, false, m.num[:0])
			nv, null = v, c.field.NonText(m.num)
		}
		switch {
		case err != nil:
			return nil, err
		case null:
			out = append(out, 0xfb)
		default:
			out = wire.AppendLenencString(out, nv)
		}
	}
	if len(p) != 0 {
		return nil, errMalformedRow
	}
	return out, nil
}

// binaryRow masks a binary-protocol row: 0x00, the NULL bitmap (offset 2),
// then each value that is not NULL in its type's encoding. A value that
// becomes NULL is set in the bitmap and left out.
func (m *rowMasker) binaryRow(p []byte) ([]byte, error) {
	nb := wire.NullBitmapLen(len(m.cols))
	if len(p) < 1+nb || p[0] != 0x00 {
		return nil, errMalformedRow
	}
	out := append(m.out[:0], p[:1+nb]...)
	p = p[1+nb:]
	for i := range m.cols {
		bit, mask := 1+(i+2)/8, byte(1)<<((i+2)%8)
		if out[bit]&mask != 0 {
			continue
		}
		start, n, ok := wire.BinaryValueLen(m.cols[i].typ, p)
		if !ok {
			return nil, errMalformedRow
		}
		raw := p[:n]
		p = p[n:]
		c := &m.cols[i]
		if c.field == nil {
			out = append(out, raw...)
			continue
		}
		if isText(c.typ) {
			nv, null, err := m.maskText(c, raw[start:])
			switch {
			case err != nil:
				return nil, err
			case null:
				out[bit] |= mask
			default:
				out = wire.AppendLenencString(out, nv)
			}
			continue
		}
		m.num = textOfValue(c, raw[start:], true, m.num[:0])
		if c.field.NonText(m.num) {
			out[bit] |= mask
		} else {
			out = append(out, raw...)
		}
	}
	if len(p) != 0 {
		return nil, errMalformedRow
	}
	return out, nil
}

// maskText masks one text value, read in its column's character set and
// written back in it. null: the value must be sent as NULL (a column rule
// masks a value it could not read).
func (m *rowMasker) maskText(c *maskCol, v []byte) (out []byte, null bool, err error) {
	if c.cs.unknown {
		null, err = c.field.Unreadable("its character set " + c.cs.name + " is not one the masking decodes")
		return v, null, err
	}
	if c.cs.enc == nil { // utf8mb3/utf8mb4, ascii, binary: read as they are
		t, changed := c.field.Text(m.text, v)
		if changed {
			m.text = t
		}
		return t, false, nil
	}
	u, derr := c.cs.enc.NewDecoder().Bytes(v)
	if derr != nil {
		null, err = c.field.Unreadable("it is not valid " + c.cs.name)
		return v, null, err
	}
	t, changed := c.field.Text(m.text, u)
	if !changed {
		return v, false, nil
	}
	m.text = t
	b, eerr := c.cs.enc.NewEncoder().Bytes(t)
	if eerr != nil { // a character of the value that does not round-trip: do not send it in clear
		return nil, true, nil
	}
	return b, false, nil
}

// unreadable decides a whole row the masker cannot read (a row of 16 MiB
// or more): every column with a Field is unreadable. The error withholds
// the result; a column rule that would NULL a value withholds it too,
// since the row is not rewritten.
func (m *rowMasker) unreadable(what string) error {
	for i := range m.cols {
		null, err := m.cols[i].field.Unreadable(what)
		if err != nil {
			return err
		}
		if null {
			return fmt.Errorf("hoop: the result was withheld: a masking rule masks a column of a row it cannot rewrite (%s)", what)
		}
	}
	return nil
}

// isText reports whether values of type t are text that can hold a
// masked form (strings, blobs, JSON, ENUM, SET).
func isText(t byte) bool {
	switch t {
	case gm.MYSQL_TYPE_VARCHAR, gm.MYSQL_TYPE_VAR_STRING, gm.MYSQL_TYPE_STRING,
		gm.MYSQL_TYPE_TINY_BLOB, gm.MYSQL_TYPE_MEDIUM_BLOB,
		gm.MYSQL_TYPE_LONG_BLOB, gm.MYSQL_TYPE_BLOB, gm.MYSQL_TYPE_JSON, gm.MYSQL_TYPE_ENUM, gm.MYSQL_TYPE_SET:
		return true
	}
	return false
}

// textOfValue appends to dst the text the server prints for a value of a
// non-text column c (a number, a date, BIT), for Field.NonText: a card
// number kept in a BIGINT is found there. bin: v is in the binary
// protocol's encoding; else it is the text protocol's (already text, but
// for BIT). GEOMETRY gives no text.
func textOfValue(c *maskCol, v []byte, bin bool, dst []byte) []byte {
	switch c.typ {
	case gm.MYSQL_TYPE_BIT:
		var u uint64
		for _, b := range v {
			u = u<<8 | uint64(b)
		}
		return strconv.AppendUint(dst, u, 10)
	case gm.MYSQL_TYPE_GEOMETRY:
		return dst
	}
	if !bin {
		return append(dst, v...)
	}
	switch c.typ {
	case gm.MYSQL_TYPE_TINY:
		if c.unsigned {
			return strconv.AppendUint(dst, uint64(v[0]), 10)
		}
		return strconv.AppendInt(dst, int64(int8(v[0])), 10)
	case gm.MYSQL_TYPE_SHORT, gm.MYSQL_TYPE_YEAR:
		u := binary.LittleEndian.Uint16(v)
		if c.unsigned || c.typ == gm.MYSQL_TYPE_YEAR {
			return strconv.AppendUint(dst, uint64(u), 10)
		}
		return strconv.AppendInt(dst, int64(int16(u)), 10)
	case gm.MYSQL_TYPE_LONG, gm.MYSQL_TYPE_INT24:
		u := binary.LittleEndian.Uint32(v)
		if c.unsigned {
			return strconv.AppendUint(dst, uint64(u), 10)
		}
		return strconv.AppendInt(dst, int64(int32(u)), 10)
	case gm.MYSQL_TYPE_LONGLONG:
		u := binary.LittleEndian.Uint64(v)
		if c.unsigned {
			return strconv.AppendUint(dst, u, 10)
		}
		return strconv.AppendInt(dst, int64(u), 10)
	case gm.MYSQL_TYPE_FLOAT:
		return strconv.AppendFloat(dst, float64(math.Float32frombits(binary.LittleEndian.Uint32(v))), 'f', -1, 32)
	case gm.MYSQL_TYPE_DOUBLE:
		return strconv.AppendFloat(dst, math.Float64frombits(binary.LittleEndian.Uint64(v)), 'f', -1, 64)
	case gm.MYSQL_TYPE_DATE, gm.MYSQL_TYPE_DATETIME, gm.MYSQL_TYPE_TIMESTAMP, gm.MYSQL_TYPE_NEWDATE,
		gm.MYSQL_TYPE_TIMESTAMP2, gm.MYSQL_TYPE_DATETIME2:
		var t [11]byte
		copy(t[:], v)
		return fmt.Appendf(dst, "%04d-%02d-%02d %02d:%02d:%02d.%06d", binary.LittleEndian.Uint16(t[0:]), t[2], t[3],
			t[4], t[5], t[6], binary.LittleEndian.Uint32(t[7:]))
	case gm.MYSQL_TYPE_TIME, gm.MYSQL_TYPE_TIME2:
		var t [12]byte
		copy(t[:], v)
		h := binary.LittleEndian.Uint32(t[1:])*24 + uint32(t[5])
		sign := ""
		if t[0] == 1 {
			sign = "-"
		}
		return fmt.Appendf(dst, "%s%02d:%02d:%02d.%06d", sign, h, t[6], t[7], binary.LittleEndian.Uint32(t[8:]))
	}
	return append(dst, v...) // DECIMAL: a length-encoded string of its digits
}
