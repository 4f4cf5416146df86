package mask

import (
	"encoding/binary"
	"errors"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/hoophq/sidecar/domain/masking"
)

// Column is one result column as the masking reads it: its type, the
// format its values come in (0 text, 1 binary) and its masking (nil:
// passed unread).
type Column struct {
	OID    uint32
	Format int16
	Field  *masking.Field
}

// Columns returns the columns of a RowDescription under plan p, appended
// to dst[:0]. A column's path is ["", name]: the RowDescription names the
// table only by OID.
func Columns(dst []Column, p *masking.Plan, fields []pgproto3.FieldDescription) []Column {
	dst = dst[:0]
	for _, fd := range fields {
		dst = append(dst, Column{OID: fd.DataTypeOID, Format: fd.Format, Field: p.Field("", string(fd.Name))})
	}
	return dst
}

// ErrMalformed is a DataRow (or a value in it) that does not parse as
// PostgreSQL sends it. The relay withholds the result, as for a value a
// strict rule cannot read.
var ErrMalformed = errors.New("hoop: the result was withheld: the upstream sent a DataRow the Sidecar cannot parse, so its values could not be masked")

// Row rewrites the DataRows of one result. It keeps its buffers from row
// to row, so a result costs the memory of its largest row.
type Row struct {
	Plan *masking.Plan
	// Cols are the columns of the current RowDescription; nil when none
	// was seen, and then every value is masked by entity, by Plan.Field().
	Cols []Column
	// Encoding is the session's client_encoding. Text in a multi-byte
	// encoding other than UTF8 cannot be read by the entity patterns: it
	// is a value masking cannot read (Field.Unreadable).
	Encoding string

	// Scratch buffers: the row, a value, Text's output, an array element,
	// an unquoted array element, a rendered binary value.
	out, val, tmp, elem, raw, num []byte
	// types decodes binary values for render (binary.go), made at the
	// first one.
	types *pgtype.Map
}

// Mask returns the DataRow frame (type byte, length, body) with its
// values masked: frame itself when nothing changed, else a frame in r's
// buffer, valid until the next call. A value masked whole, or a non-text
// value an entity was found in, becomes NULL. err is an
// *masking.UnreadableError (a strict rule could not read a value) or
// ErrMalformed; nothing of the row may then be sent.
func (r *Row) Mask(frame []byte) ([]byte, error) {
	if len(frame) < 7 {
		return nil, ErrMalformed
	}
	n := int(int16(binary.BigEndian.Uint16(frame[5:])))
	cols := r.Cols
	if n != len(cols) {
		cols = nil
	}
	pos, started := 7, false
	var out []byte
	for i := 0; i < n; i++ {
		if pos+4 > len(frame) {
			return nil, ErrMalformed
		}
		start, l := pos, int(int32(binary.BigEndian.Uint32(frame[pos:])))
		pos += 4
		if l > len(frame)-pos {
			return nil, ErrMalformed
		}
		var c Column
		if cols != nil {
			c = cols[i]
		} else {
			c.Field = r.Plan.Field()
		}
		if l < 0 || c.Field == nil {
			if l > 0 {
				pos += l
			}
			if started {
				out = append(out, frame[start:pos]...)
			}
			continue
		}
		v := frame[pos : pos+l]
		pos += l
		var null, changed bool
		var err error
		if cols == nil {
			null, err = c.Field.Unreadable("a value of a result whose RowDescription the listener did not see")
		} else {
			r.val, null, changed, err = r.value(r.val[:0], c.Field, c.OID, c.Format, v)
		}
		if err != nil {
			return nil, err
		}
		if !null && !changed {
			if started {
				out = append(out, frame[start:pos]...)
			}
			continue
		}
		if !started {
			out, started = append(r.out[:0], frame[:start]...), true
		}
		if null {
			out = binary.BigEndian.AppendUint32(out, 0xFFFFFFFF)
			continue
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(r.val)))
		out = append(out, r.val...)
	}
	if pos != len(frame) {
		return nil, ErrMalformed
	}
	if !started {
		return frame, nil
	}
	binary.BigEndian.PutUint32(out[1:], uint32(len(out)-1))
	r.out = out
	return out, nil
}

// text masks v by f.Text in r's scratch buffer: the result is valid until
// the next call.
func (r *Row) text(f *masking.Field, v []byte) ([]byte, bool) {
	m, changed := f.Text(r.tmp, v)
	if changed {
		r.tmp = m[:0]
	}
	return m, changed
}
