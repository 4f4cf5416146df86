package domain

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"
)

// FingerprintInput is what identifies a statement (docs/architecture.md, "The
// core's rules"): the Sidecar, the listener, the protocol, the client's identity where
// the protocol has one (the database login user), the values of the headers or
// metadata keys the listener names (for http and grpc; none by default), and
// the protocol's canonical bytes of the statement, parameters included.
//
// Canonical is what the client sent minus what its driver varies on every send
// (e.g. MongoDB lsid, $clusterTime, txnNumber; a PostgreSQL prepared statement
// name). The protocol adapter produces it.
type FingerprintInput struct {
	Sidecar  string
	Listener string
	Protocol string
	Identity string
	// IdentityValues maps a header/metadata key (lowercased by the adapter)
	// to its values. Only hashes of the values enter the fingerprint.
	IdentityValues map[string][]string
	Canonical      []byte
}

// Fingerprint returns the statement's fingerprint: "v1:" followed by 64 hex
// digits of SHA-256 over the length-prefixed fields, so that no two different
// inputs collide by concatenation. The same input always gives the same
// fingerprint; one principal's approval is never spent by another.
func Fingerprint(in FingerprintInput) string {
	// The fields before the canonical bytes are laid out in one buffer, then
	// hashed with the canonical bytes: the same bytes, so the same
	// fingerprint, as writing each field to the hash on its own.
	n := len(fingerprintTag) + len(in.Sidecar) + len(in.Listener) + len(in.Protocol) + len(in.Identity) + 6*8
	for k, vs := range in.IdentityValues {
		n += 8 + len(k) + len(vs)*(8+sha256.Size)
	}
	b := make([]byte, 0, n)
	b = field(b, fingerprintTag)
	b = field(b, in.Sidecar)
	b = field(b, in.Listener)
	b = field(b, in.Protocol)
	b = field(b, in.Identity)
	keys := make([]string, 0, len(in.IdentityValues))
	for k := range in.IdentityValues {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b = field(b, k)
		for _, v := range in.IdentityValues[k] {
			sum := sha256.Sum256([]byte(v))
			b = field(b, sum[:])
		}
	}
	b = binary.BigEndian.AppendUint64(b, uint64(len(in.Canonical)))
	h := sha256.New()
	h.Write(b)
	h.Write(in.Canonical)
	var sum [sha256.Size]byte
	return "v1:" + hex.EncodeToString(h.Sum(sum[:0]))
}

// fingerprintTag is the first field of every fingerprint (its version).
const fingerprintTag = "hoop-fingerprint-v1"

// field appends f to b with its length before it (8 bytes, big endian).
func field[T string | []byte](b []byte, f T) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
	return append(b, f...)
}
