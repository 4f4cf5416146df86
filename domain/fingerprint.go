package domain

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sort"
)

// FingerprintInput is what identifies a statement (design.md, "Rules of the
// core"): the Sidecar, the listener, the protocol, the client's identity where
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
	h := sha256.New()
	field(h, []byte("hoop-fingerprint-v1"))
	field(h, []byte(in.Sidecar))
	field(h, []byte(in.Listener))
	field(h, []byte(in.Protocol))
	field(h, []byte(in.Identity))
	keys := make([]string, 0, len(in.IdentityValues))
	for k := range in.IdentityValues {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		field(h, []byte(k))
		for _, v := range in.IdentityValues[k] {
			sum := sha256.Sum256([]byte(v))
			field(h, sum[:])
		}
	}
	field(h, in.Canonical)
	return "v1:" + hex.EncodeToString(h.Sum(nil))
}

func field(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}
