package tds

import (
	"encoding/binary"
	"fmt"
)

// FlagEncrypted is COLMETADATA's fEncrypted bit (MS-TDS 2.2.7.4, TDS 7.4):
// Always Encrypted cipher metadata follows the column's TYPE_INFO.
const FlagEncrypted uint16 = 0x0800

// Column is one column of COLMETADATA (MS-TDS 2.2.7.4).
type Column struct {
	UserType uint32
	Flags    uint16 // bit 0 fNullable; FlagEncrypted is not read (ErrCannotFrame)
	Type     TypeInfo
	Table    []string // only for TEXT/NTEXT/IMAGE
	Name     string
}

// ColMetadata is the COLMETADATA token (0x81). A nil Columns with NoMetadata
// encodes the 0xFFFF "no metadata" count.
type ColMetadata struct {
	Columns    []Column
	NoMetadata bool
}

// DecodeColMetadata parses the token body after the token byte and returns
// the bytes it used. It reads the layout of a session without column
// encryption (no CekTable: the mssql listener refuses the COLUMNENCRYPTION
// feature at login). Errors: ErrShort; *UnknownTypeError for a column type
// this codec cannot frame; ErrCannotFrame (wrapped) for a column flagged
// encrypted, whose CryptoMetaData this codec does not read.
func DecodeColMetadata(b []byte) (*ColMetadata, int, error) {
	r := &reader{b: b}
	n := r.u16("column count")
	if r.err != nil {
		return nil, 0, r.err
	}
	cm := &ColMetadata{}
	if n == 0xFFFF {
		cm.NoMetadata = true
		return cm, r.off, nil
	}
	for range n {
		var c Column
		c.UserType = r.u32("UserType")
		c.Flags = r.u16("Flags")
		if err := decodeColumnRest(r, &c); err != nil {
			return nil, 0, err
		}
		cm.Columns = append(cm.Columns, c)
	}
	return cm, r.off, nil
}

// decodeColumnRest reads what follows a column's UserType and Flags in
// COLMETADATA and ALTMETADATA: TYPE_INFO, the table name of a TEXT, NTEXT
// or IMAGE column, the column name.
func decodeColumnRest(r *reader, c *Column) error {
	if r.err != nil {
		return r.err
	}
	if c.Flags&FlagEncrypted != 0 {
		return fmt.Errorf("%w: a column flagged encrypted (Always Encrypted cipher metadata)", ErrCannotFrame)
	}
	ti, err := decodeResultTypeInfo(r)
	if err != nil {
		return err
	}
	c.Type = ti
	if ti.Type == TypeText || ti.Type == TypeNText || ti.Type == TypeImage {
		parts := int(r.u8("NumParts"))
		for range parts {
			c.Table = append(c.Table, r.usvarchar("TableName"))
		}
	}
	c.Name = r.bvarchar("ColName")
	return r.err
}

// appendColumnRest writes what decodeColumnRest reads.
func appendColumnRest(dst []byte, c Column) []byte {
	dst = c.Type.Append(dst)
	if c.Type.Type == TypeText || c.Type.Type == TypeNText || c.Type.Type == TypeImage {
		dst = append(dst, byte(len(c.Table)))
		for _, p := range c.Table {
			dst = appendUSVarchar(dst, p)
		}
	}
	return appendBVarchar(dst, c.Name)
}

// Append writes the whole token to dst.
func (cm *ColMetadata) Append(dst []byte) []byte {
	dst = append(dst, TokenColMetadata)
	if cm.NoMetadata {
		return binary.LittleEndian.AppendUint16(dst, 0xFFFF)
	}
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(cm.Columns)))
	for _, c := range cm.Columns {
		dst = binary.LittleEndian.AppendUint32(dst, c.UserType)
		dst = binary.LittleEndian.AppendUint16(dst, c.Flags)
		dst = appendColumnRest(dst, c)
	}
	return dst
}
