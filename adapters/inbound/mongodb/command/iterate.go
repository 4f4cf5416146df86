package command

import (
	"bytes"
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// each calls fn with the key bytes and value of every element of d, in
// order, without allocating (bsoncore's Elements allocates a slice and
// Key a string per element). It stops at a malformed element or when fn
// returns false.
func each(d []byte, fn func(key []byte, e bsoncore.Element) bool) {
	if len(d) < 5 {
		return
	}
	n := int(int32(binary.LittleEndian.Uint32(d)))
	if n < 5 || n > len(d) {
		return
	}
	rem := d[4 : n-1]
	for len(rem) > 0 {
		e, next, ok := bsoncore.ReadElement(rem)
		if !ok {
			return
		}
		k := bytes.IndexByte(e[1:], 0)
		if !fn(e[1:k+1], e) {
			return
		}
		rem = next
	}
}

// valueOf is e's value (bsoncore's Value re-scans the key).
func valueOf(key []byte, e bsoncore.Element) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.Type(e[0]), Data: e[len(key)+2:]}
}
