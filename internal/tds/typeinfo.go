package tds

import "encoding/binary"

// Data type bytes of TYPE_INFO, MS-TDS 2.2.5.4.
const (
	TypeNull           byte = 0x1F
	TypeInt1           byte = 0x30
	TypeBit            byte = 0x32
	TypeInt2           byte = 0x34
	TypeInt4           byte = 0x38
	TypeDateTim4       byte = 0x3A
	TypeFlt4           byte = 0x3B
	TypeMoney          byte = 0x3C
	TypeDateTime       byte = 0x3D
	TypeFlt8           byte = 0x3E
	TypeMoney4         byte = 0x7A
	TypeInt8           byte = 0x7F
	TypeGUID           byte = 0x24
	TypeIntN           byte = 0x26
	TypeDecimal        byte = 0x37
	TypeNumeric        byte = 0x3F
	TypeBitN           byte = 0x68
	TypeDecimalN       byte = 0x6A
	TypeNumericN       byte = 0x6C
	TypeFltN           byte = 0x6D
	TypeMoneyN         byte = 0x6E
	TypeDateTimeN      byte = 0x6F
	TypeDateN          byte = 0x28
	TypeTimeN          byte = 0x29
	TypeDateTime2N     byte = 0x2A
	TypeDateTimeOffset byte = 0x2B
	TypeChar           byte = 0x2F
	TypeVarChar        byte = 0x27
	TypeBinary         byte = 0x2D
	TypeVarBinary      byte = 0x25
	TypeBigVarBinary   byte = 0xA5
	TypeBigVarChar     byte = 0xA7
	TypeBigBinary      byte = 0xAD
	TypeBigChar        byte = 0xAF
	TypeNVarChar       byte = 0xE7
	TypeNChar          byte = 0xEF
	TypeXML            byte = 0xF1
	TypeText           byte = 0x23
	TypeImage          byte = 0x22
	TypeNText          byte = 0x63
	TypeVariant        byte = 0x62
	TypeUDT            byte = 0xF0 // CLR user-defined type: in results only (decodeResultTypeInfo)
)

// MaxLenPLP is the USHORT max length that marks a (max) type sent as
// PLP chunks (MS-TDS 2.2.5.2.3).
const MaxLenPLP = 0xFFFF

// TypeInfo is a decoded TYPE_INFO (MS-TDS 2.2.5.4.1): the type byte and the
// length, precision, scale and collation that follow it for that type.
// Raw is the exact TYPE_INFO bytes as read (or as Encode writes them), which
// is what a fingerprint should hash.
type TypeInfo struct {
	Type      byte
	Size      int // fixed size, or the declared max length (bytes); MaxLenPLP for (max)
	Precision byte
	Scale     byte
	Collation [5]byte
	UDT       *UDTInfo // TypeUDT only
	Raw       []byte
}

// UDTInfo is the UDT_INFO of a CLR user-defined type column in
// COLMETADATA, ALTMETADATA or RETURNVALUE (MS-TDS 2.2.5.5.2): where the
// type is defined. Its values travel as PLP chunks whatever the size.
type UDTInfo struct {
	DB, Schema, Name string // B_VARCHAR each
	Assembly         string // ASSEMBLY_QUALIFIED_NAME, US_VARCHAR
}

func fixedSize(t byte) (int, bool) {
	switch t {
	case TypeNull:
		return 0, true
	case TypeInt1, TypeBit:
		return 1, true
	case TypeInt2:
		return 2, true
	case TypeInt4, TypeDateTim4, TypeFlt4, TypeMoney4:
		return 4, true
	case TypeMoney, TypeDateTime, TypeFlt8, TypeInt8:
		return 8, true
	}
	return 0, false
}

// IsPLP reports whether values of this type travel as PLP chunks.
func (t TypeInfo) IsPLP() bool {
	switch t.Type {
	case TypeXML, TypeUDT:
		return true
	case TypeBigVarBinary, TypeBigVarChar, TypeNVarChar:
		return t.Size == MaxLenPLP
	}
	return false
}

// decodeResultTypeInfo reads the TYPE_INFO of a result column or a
// RETURNVALUE: decodeTypeInfo's types, and a CLR UDT with its UDT_INFO
// (MS-TDS 2.2.5.5.2: MAX_BYTE_SIZE, then the database, schema and type
// names, then the assembly-qualified name). An RPC parameter's UDT_INFO is
// laid out otherwise, so decodeTypeInfo (requests) does not read it.
func decodeResultTypeInfo(r *reader) (TypeInfo, error) {
	if r.err != nil || r.left() == 0 || r.b[r.off] != TypeUDT {
		return decodeTypeInfo(r)
	}
	start := r.off
	r.u8("TYPE_INFO")
	ti := TypeInfo{Type: TypeUDT, Size: int(r.u16("UDT MAX_BYTE_SIZE")), UDT: &UDTInfo{}}
	ti.UDT.DB = r.bvarchar("UDT DB_NAME")
	ti.UDT.Schema = r.bvarchar("UDT SCHEMA_NAME")
	ti.UDT.Name = r.bvarchar("UDT TYPE_NAME")
	ti.UDT.Assembly = r.usvarchar("UDT ASSEMBLY_QUALIFIED_NAME")
	if r.err != nil {
		return ti, r.err
	}
	ti.Raw = r.b[start:r.off]
	return ti, nil
}

// decodeTypeInfo reads TYPE_INFO. Unknown or unsupported types (UDT, TVP,
// …) return *UnknownTypeError. SQL_VARIANT is read as one opaque value.
func decodeTypeInfo(r *reader) (TypeInfo, error) {
	start := r.off
	ti := TypeInfo{Type: r.u8("TYPE_INFO")}
	if r.err != nil {
		return ti, r.err
	}
	if n, ok := fixedSize(ti.Type); ok {
		ti.Size = n
	} else {
		switch ti.Type {
		case TypeGUID, TypeIntN, TypeBitN, TypeFltN, TypeMoneyN, TypeDateTimeN,
			TypeChar, TypeVarChar, TypeBinary, TypeVarBinary:
			ti.Size = int(r.u8("TYPE_INFO length"))
		case TypeDecimal, TypeNumeric, TypeDecimalN, TypeNumericN:
			ti.Size = int(r.u8("TYPE_INFO length"))
			ti.Precision = r.u8("precision")
			ti.Scale = r.u8("scale")
		case TypeDateN:
			ti.Size = 3
		case TypeTimeN, TypeDateTime2N, TypeDateTimeOffset:
			ti.Scale = r.u8("scale")
		case TypeBigVarBinary, TypeBigBinary:
			ti.Size = int(r.u16("TYPE_INFO length"))
		case TypeBigVarChar, TypeBigChar, TypeNVarChar, TypeNChar:
			ti.Size = int(r.u16("TYPE_INFO length"))
			copy(ti.Collation[:], r.bytes(5, "collation"))
		case TypeText, TypeNText:
			ti.Size = int(r.u32("TYPE_INFO length"))
			copy(ti.Collation[:], r.bytes(5, "collation"))
		case TypeImage, TypeVariant:
			ti.Size = int(r.u32("TYPE_INFO length"))
		case TypeXML:
			ti.Size = MaxLenPLP
			if r.u8("XML schema present") == 1 {
				r.bvarchar("XML db")
				r.bvarchar("XML schema")
				r.usvarchar("XML schema collection")
			}
		default:
			return ti, &UnknownTypeError{Type: ti.Type}
		}
	}
	if r.err != nil {
		return ti, r.err
	}
	ti.Raw = r.b[start:r.off]
	return ti, nil
}

// Append writes TYPE_INFO for ti to dst (Raw is ignored).
func (ti TypeInfo) Append(dst []byte) []byte {
	dst = append(dst, ti.Type)
	if _, ok := fixedSize(ti.Type); ok {
		return dst
	}
	switch ti.Type {
	case TypeGUID, TypeIntN, TypeBitN, TypeFltN, TypeMoneyN, TypeDateTimeN,
		TypeChar, TypeVarChar, TypeBinary, TypeVarBinary:
		dst = append(dst, byte(ti.Size))
	case TypeDecimal, TypeNumeric, TypeDecimalN, TypeNumericN:
		dst = append(dst, byte(ti.Size), ti.Precision, ti.Scale)
	case TypeTimeN, TypeDateTime2N, TypeDateTimeOffset:
		dst = append(dst, ti.Scale)
	case TypeBigVarBinary, TypeBigBinary:
		dst = binary.LittleEndian.AppendUint16(dst, uint16(ti.Size))
	case TypeBigVarChar, TypeBigChar, TypeNVarChar, TypeNChar:
		dst = binary.LittleEndian.AppendUint16(dst, uint16(ti.Size))
		dst = append(dst, ti.Collation[:]...)
	case TypeText, TypeNText:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(ti.Size))
		dst = append(dst, ti.Collation[:]...)
	case TypeImage, TypeVariant:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(ti.Size))
	case TypeXML:
		dst = append(dst, 0)
	case TypeUDT:
		u := ti.UDT
		if u == nil {
			u = &UDTInfo{}
		}
		dst = binary.LittleEndian.AppendUint16(dst, uint16(ti.Size))
		dst = appendBVarchar(dst, u.DB)
		dst = appendBVarchar(dst, u.Schema)
		dst = appendBVarchar(dst, u.Name)
		dst = appendUSVarchar(dst, u.Assembly)
	}
	return dst
}

// readValue reads one TYPE_VARBYTE value of type ti (MS-TDS 2.2.5.2.3). It
// returns nil for NULL; PLP chunks are joined. The result never exceeds the
// input's length.
func readValue(r *reader, ti TypeInfo) ([]byte, error) {
	if n, ok := fixedSize(ti.Type); ok {
		v := r.bytes(n, "value")
		if v == nil {
			v = []byte{}
		}
		return v, r.err
	}
	switch ti.Type {
	case TypeGUID, TypeIntN, TypeBitN, TypeFltN, TypeMoneyN, TypeDateTimeN,
		TypeDecimal, TypeNumeric, TypeDecimalN, TypeNumericN,
		TypeDateN, TypeTimeN, TypeDateTime2N, TypeDateTimeOffset,
		TypeChar, TypeVarChar, TypeBinary, TypeVarBinary:
		n := int(r.u8("value length"))
		if r.err != nil || n == 0 && ti.Type != TypeChar && ti.Type != TypeVarChar && ti.Type != TypeBinary && ti.Type != TypeVarBinary {
			return nil, r.err
		}
		if n == 0xFF && (ti.Type == TypeChar || ti.Type == TypeVarChar || ti.Type == TypeBinary || ti.Type == TypeVarBinary) {
			return nil, nil
		}
		return r.bytes(n, "value"), r.err
	case TypeText, TypeNText, TypeImage:
		p := int(r.u8("text pointer length"))
		if r.err != nil || p == 0 {
			return nil, r.err
		}
		r.bytes(p+8, "text pointer")
		return r.bytes(int(r.u32("value length")), "value"), r.err
	}
	if ti.Type == TypeVariant {
		// sql_variant (MS-TDS 2.2.5.5.4): a LONGLEN length, 0 for NULL,
		// then the base type's info and value, kept as one opaque value.
		n := int(r.u32("sql_variant length"))
		if r.err != nil || n == 0 {
			return nil, r.err
		}
		return r.bytes(n, "sql_variant value"), r.err
	}
	if ti.IsPLP() {
		return readPLP(r)
	}
	n := int(r.u16("value length"))
	if r.err != nil || n == 0xFFFF {
		return nil, r.err
	}
	return r.bytes(n, "value"), r.err
}

// PLP total lengths with a meaning, MS-TDS 2.2.5.2.3.
const (
	plpNull    uint64 = 0xFFFFFFFFFFFFFFFF
	plpUnknown uint64 = 0xFFFFFFFFFFFFFFFE
)

// readPLP reads a PLP value: ULONGLONG total length (all ones = NULL,
// plpUnknown = not announced), then chunks of ULONG length ending with a
// zero chunk. r.plpUnknown records whether the length was unannounced.
func readPLP(r *reader) ([]byte, error) {
	total := r.u64("PLP length")
	r.plpUnknown = total == plpUnknown
	if r.err != nil || total == plpNull {
		return nil, r.err
	}
	out := []byte{}
	for {
		n := r.u32("PLP chunk length")
		if r.err != nil {
			return nil, r.err
		}
		if n == 0 {
			return out, nil
		}
		c := r.bytes(int(min(n, uint32(r.left()+1))), "PLP chunk")
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, c...)
	}
}

// AppendValue writes v as a TYPE_VARBYTE of type ti (nil = NULL). PLP values
// go as one chunk with their total length announced.
func AppendValue(dst []byte, ti TypeInfo, v []byte) []byte {
	return appendValue(dst, ti, v, false)
}

// appendValue is AppendValue; unknownLen sends a PLP value with
// PLP_UNKNOWN_LEN as go-mssqldb does for (max) parameters.
func appendValue(dst []byte, ti TypeInfo, v []byte, unknownLen bool) []byte {
	le := binary.LittleEndian
	if _, ok := fixedSize(ti.Type); ok {
		return append(dst, v...)
	}
	switch ti.Type {
	case TypeGUID, TypeIntN, TypeBitN, TypeFltN, TypeMoneyN, TypeDateTimeN,
		TypeDecimal, TypeNumeric, TypeDecimalN, TypeNumericN,
		TypeDateN, TypeTimeN, TypeDateTime2N, TypeDateTimeOffset:
		return append(append(dst, byte(len(v))), v...)
	case TypeChar, TypeVarChar, TypeBinary, TypeVarBinary:
		if v == nil {
			return append(dst, 0xFF)
		}
		return append(append(dst, byte(len(v))), v...)
	}
	if ti.Type == TypeText || ti.Type == TypeNText || ti.Type == TypeImage {
		if v == nil {
			return append(dst, 0)
		}
		// A 16-byte text pointer and 8-byte timestamp of zeros: the
		// server ignores them on input (MS-TDS 2.2.5.2.3).
		dst = append(dst, 16)
		dst = append(dst, make([]byte, 24)...)
		return append(le.AppendUint32(dst, uint32(len(v))), v...)
	}
	if ti.Type == TypeVariant {
		return append(le.AppendUint32(dst, uint32(len(v))), v...)
	}
	if ti.IsPLP() {
		if v == nil {
			return le.AppendUint64(dst, plpNull)
		}
		if unknownLen {
			dst = le.AppendUint64(dst, plpUnknown)
		} else {
			dst = le.AppendUint64(dst, uint64(len(v)))
		}
		if len(v) > 0 {
			dst = le.AppendUint32(dst, uint32(len(v)))
			dst = append(dst, v...)
		}
		return le.AppendUint32(dst, 0)
	}
	if v == nil {
		return le.AppendUint16(dst, 0xFFFF)
	}
	return append(le.AppendUint16(dst, uint16(len(v))), v...)
}
