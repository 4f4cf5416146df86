package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// MaxDepth is the deepest nesting of documents and arrays ValidateDocument
// accepts: 200, the server's own limit for BSON it parses
// (BSONDepth::kDefaultMaxAllowableDepth). Past it a message is malformed,
// and code walking documents (the command analysis) may recurse safely.
const MaxDepth = 200

// ValidateDocument checks that doc is one well-formed BSON document
// (bsonspec.org 1.1), nested documents and arrays included, at most
// MaxDepth deep: every length within its container, every string and key
// NUL-terminated, booleans 0 or 1, every element type known. bsoncore's Validate checks the
// top level only; this walks the nested documents too.
func ValidateDocument(doc bsoncore.Document) error { return validateDocument(doc, 1) }

var errDepth = fmt.Errorf("documents nested more than %d deep", MaxDepth)

func validateDocument(doc bsoncore.Document, depth int) error {
	if depth > MaxDepth {
		return errDepth
	}
	// One pass, in the manner of bsoncore's Document.Validate (which
	// checks the top level only) without its second scan of each element.
	if len(doc) < 5 {
		return bsoncore.ErrInvalidLength
	}
	if int(int32(binary.LittleEndian.Uint32(doc))) != len(doc) {
		return errors.New("document length does not match its bytes")
	}
	if doc[len(doc)-1] != 0 {
		return bsoncore.ErrMissingNull
	}
	rem := doc[4 : len(doc)-1]
	for len(rem) > 0 {
		elem, next, ok := bsoncore.ReadElement(rem)
		if !ok {
			return errors.New("element runs past its document")
		}
		rem = next
		key := bytes.IndexByte(elem[1:], 0)
		if err := validateValue(bsoncore.Type(elem[0]), elem[key+2:], depth); err != nil {
			return fmt.Errorf("%q: %w", elem[1:key+1], err)
		}
	}
	return nil
}

func validateValue(t bsoncore.Type, data []byte, depth int) error {
	switch t {
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		return validateDocument(data, depth+1)
	case bsoncore.TypeString, bsoncore.TypeJavaScript, bsoncore.TypeSymbol, bsoncore.TypeDBPointer:
		return validateString(data)
	case bsoncore.TypeCodeWithScope:
		if len(data) < 4 || int(binary.LittleEndian.Uint32(data)) != len(data) {
			return errors.New("code with scope: length does not match its bytes")
		}
		if err := validateString(data[4:]); err != nil {
			return err
		}
		n := 4 + 4 + int(binary.LittleEndian.Uint32(data[4:]))
		if n > len(data) {
			return errors.New("code with scope: code runs past its value")
		}
		return validateDocument(data[n:], depth+1)
	case bsoncore.TypeBoolean:
		if data[0] > 1 { // ReadElement checked the byte is there
			return errors.New("boolean neither 0 nor 1")
		}
	case bsoncore.TypeBinary:
		if len(data) >= 5 && data[4] == 0x02 { // the old binary subtype repeats its length inside
			if len(data) < 9 || int(binary.LittleEndian.Uint32(data[5:]))+4 != int(binary.LittleEndian.Uint32(data)) {
				return errors.New("binary subtype 2: inner length does not match")
			}
		}
	}
	return nil
}

// validateString checks a length-prefixed, NUL-terminated string.
func validateString(data []byte) error {
	if len(data) < 5 {
		return errors.New("string shorter than its length and NUL")
	}
	n := int(int32(binary.LittleEndian.Uint32(data)))
	if n < 1 || 4+n > len(data) || data[4+n-1] != 0 {
		return errors.New("string not NUL-terminated within its length")
	}
	return nil
}
