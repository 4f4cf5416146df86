package command

import (
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The flags the analysis reads, read as mongod's command parsers (IDL)
// read them, so a flag never means one thing to the analysis and another
// to the server (docs/mongodb-listener.md, "Flags and numbers"):
//
//   - an IDL "bool" field (update's and bulkWrite's upsert, ordered,
//     autocommit, startTransaction) takes a BSON boolean only;
//   - an IDL "safeBool" field (findAndModify's remove, upsert and new)
//     takes a boolean or any number, true when it is not zero
//     (BSONElement::trueValue: a NaN double or decimal is true, a decimal
//     zero of any exponent or sign is false);
//   - for both, a null or undefined value is skipped as if absent (the
//     field's default, false).
//
// A value of any other type is refused by mongod before the command runs
// (TypeMismatch); the analysis refuses it too (*Error), so a command never
// runs on a reading the analysis did not make, whatever mongod version is
// behind the listener.

// flagKind is the IDL type of a flag field.
type flagKind uint8

const (
	idlBool     flagKind = iota // BSON boolean only
	idlSafeBool                 // boolean or any number
)

// flag reads v, the value of field name (empty when absent), as mongod
// reads a field of kind k. Errors are *Error.
func flag(name string, v bsoncore.Value, k flagKind) (bool, error) {
	switch v.Type {
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
		return false, nil
	case bsoncore.TypeBoolean:
		b, ok := v.BooleanOK()
		if !ok {
			return false, wrongType(name, v, k)
		}
		return b, nil
	}
	if k == idlBool {
		return false, wrongType(name, v, k)
	}
	switch v.Type {
	case bsoncore.TypeInt32:
		n, ok := v.Int32OK()
		return n != 0, okOr(ok, name, v, k)
	case bsoncore.TypeInt64:
		n, ok := v.Int64OK()
		return n != 0, okOr(ok, name, v, k)
	case bsoncore.TypeDouble:
		f, ok := v.DoubleOK()
		return f != 0, okOr(ok, name, v, k) // NaN != 0: true, as mongod
	case bsoncore.TypeDecimal128:
		h, l, ok := v.Decimal128OK()
		return !decimalIsZero(h, l), okOr(ok, name, v, k)
	}
	return false, wrongType(name, v, k)
}

func okOr(ok bool, name string, v bsoncore.Value, k flagKind) error {
	if ok {
		return nil
	}
	return wrongType(name, v, k)
}

func wrongType(name string, v bsoncore.Value, k flagKind) error {
	want := "bool"
	if k == idlSafeBool {
		want = "bool, int, long, double or decimal"
	}
	return &Error{Reason: fmt.Sprintf("BSON field '%s' is the wrong type '%s', expected type '%s'", name, typeName(v.Type), want)}
}

// decimalIsZero reports whether the IEEE 754-2008 decimal128 (BID) value
// with high and low words h, l is a zero, as mongod's Decimal128::isZero
// reads it: a zero coefficient of any sign and exponent, and so also a
// non-canonical coefficient (over 10^34-1, or the "11" combination form,
// which the standard reads as zero); infinities and NaNs are not zero.
func decimalIsZero(h, l uint64) bool {
	if h>>58&0x1f >= 0x1e { // 11110 infinity, 11111 NaN
		return false
	}
	if h>>61&3 == 3 { // coefficient 0b100 + 111 bits: over 10^34-1
		return true
	}
	ch := h & (1<<49 - 1)
	const maxH, maxL = 0x0001ed09bead87c0, 0x378d8e63ffffffff // 10^34-1
	if ch > maxH || (ch == maxH && l > maxL) {
		return true
	}
	return ch == 0 && l == 0
}

// typeName is mongod's name of a BSON type, for error texts.
func typeName(t bsoncore.Type) string {
	switch t {
	case bsoncore.TypeDouble:
		return "double"
	case bsoncore.TypeString:
		return "string"
	case bsoncore.TypeEmbeddedDocument:
		return "object"
	case bsoncore.TypeArray:
		return "array"
	case bsoncore.TypeBinary:
		return "binData"
	case bsoncore.TypeObjectID:
		return "objectId"
	case bsoncore.TypeDateTime:
		return "date"
	case bsoncore.TypeRegex:
		return "regex"
	case bsoncore.TypeDBPointer:
		return "dbPointer"
	case bsoncore.TypeJavaScript:
		return "javascript"
	case bsoncore.TypeSymbol:
		return "symbol"
	case bsoncore.TypeCodeWithScope:
		return "javascriptWithScope"
	case bsoncore.TypeInt32:
		return "int"
	case bsoncore.TypeTimestamp:
		return "timestamp"
	case bsoncore.TypeInt64:
		return "long"
	case bsoncore.TypeDecimal128:
		return "decimal"
	case bsoncore.TypeMinKey:
		return "minKey"
	case bsoncore.TypeMaxKey:
		return "maxKey"
	case bsoncore.TypeBoolean:
		return "bool"
	}
	return fmt.Sprintf("type %d", byte(t))
}

// deleteLimit checks a delete entry's limit as mongod reads it (IDL
// multi_delete_bool): the value as a double (BSONElement::numberDouble: a
// decimal rounded to the nearest double, 0 for any type that is not a
// number), which must be 0 (delete every match) or 1 (one); anything else
// is refused (FailedToParse), as mongod refuses it. Either way the entry
// deletes: limit never changes the analysis, only whether mongod runs it.
func deleteLimit(v bsoncore.Value) error {
	if f := deleteLimitValue(v); f != 0 && f != 1 {
		return &Error{Reason: fmt.Sprintf("The limit field in delete objects must be 0 or 1. Got %v", f)}
	}
	return nil
}

// deleteLimitValue is a delete entry's limit as mongod reads it (see
// deleteLimit): 0 deletes every match, 1 one; any other value is refused.
func deleteLimitValue(v bsoncore.Value) float64 {
	var f float64
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble:
		f, _ = v.AsFloat64OK()
	case bsoncore.TypeDecimal128:
		h, l, _ := v.Decimal128OK()
		// "NaN", "Infinity", "1E+3", "1.00": ParseFloat reads them all.
		f, _ = strconv.ParseFloat(bson.NewDecimal128(h, l).String(), 64)
	}
	return f
}
