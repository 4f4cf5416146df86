package tds

import "encoding/binary"

// An RPC parameter's value is a TYPE_VARBYTE as in a ROW, except for
// TEXT, NTEXT and IMAGE (MS-TDS 2.2.6.6, ParamLenData): a LONGLEN length
// (0xFFFFFFFF = NULL) and the bytes, with no text pointer or timestamp,
// which only a ROW carries. tedious sends them so; read as a ROW's, the
// value's bytes would be taken for the parameters and calls after it.

// longLenNull is the LONGLEN of a NULL TEXT, NTEXT or IMAGE parameter.
const longLenNull = 0xFFFFFFFF

func isLongText(t byte) bool { return t == TypeText || t == TypeNText || t == TypeImage }

// readParamValue reads one RPC parameter's value of type ti.
func readParamValue(r *reader, ti TypeInfo) ([]byte, error) {
	if !isLongText(ti.Type) {
		return readValue(r, ti)
	}
	n := r.u32("value length")
	if r.err != nil || n == longLenNull {
		return nil, r.err
	}
	return r.bytes(int(min(n, uint32(r.left()+1))), "value"), r.err
}

// appendParamValue writes v as an RPC parameter's value of type ti (nil =
// NULL); unknownLen as for appendValue.
func appendParamValue(dst []byte, ti TypeInfo, v []byte, unknownLen bool) []byte {
	if !isLongText(ti.Type) {
		return appendValue(dst, ti, v, unknownLen)
	}
	if v == nil {
		return binary.LittleEndian.AppendUint32(dst, longLenNull)
	}
	return append(binary.LittleEndian.AppendUint32(dst, uint32(len(v))), v...)
}
