package command

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// volatileFields are the command fields left out of the canonical bytes:
// what a driver sets on every send, or per session or client, without it
// changing what the command does.
//
//   - lsid, txnNumber, autocommit, startTransaction: the session and
//     transaction a command runs in (a resend from a new session is the
//     same statement); Command keeps them for the listener.
//   - $clusterTime (with its signature), $readPreference, $audit, $client,
//     $configServerState, $topologyTime, $gleStats, $replData,
//     $oplogQueryData: gossip and routing between driver, mongos and
//     mongod.
//   - maxTimeMS: drivers with a client-side timeout (timeoutMS) send the
//     time left, different on every send; Command.MaxTimeMS keeps it.
//   - apiVersion, apiStrict, apiDeprecationErrors: the client's Stable API
//     settings, set once per client, not per command.
//
// Kept: the command name and value, $db, the filter, updates, pipeline,
// documents, sort, projection, hint, collation, let, writeConcern,
// comment and every other option.
var volatileFields = map[string]bool{
	"lsid": true, "txnNumber": true, "autocommit": true, "startTransaction": true,
	"$clusterTime": true, "$readPreference": true, "$audit": true, "$client": true,
	"$configServerState": true, "$topologyTime": true, "$gleStats": true, "$replData": true,
	"$oplogQueryData": true, "maxTimeMS": true, "apiVersion": true, "apiStrict": true,
	"apiDeprecationErrors": true,
}

// helloFields are left out of a hello / isMaster as well: the driver's
// metadata (client: driver, OS, platform, appName), its authentication
// nonce, and the monitoring fields of a streaming hello.
var helloFields = map[string]bool{
	"client": true, "speculativeAuthenticate": true, "topologyVersion": true, "maxAwaitTimeMS": true,
}

// Canonicalize returns the canonical bytes of a command: one BSON document,
// the same for the same logical command whichever driver sent it.
//
//   - The command's first element stays first, as sent.
//   - Each document sequence becomes the array field it stands for
//     (documents, updates, deletes, ops, nsInfo), documents in order, so an
//     insert sent with a kind 1 section (Go driver) and one with the array
//     in the body (mongosh, Node) are the same.
//   - The other top-level fields follow sorted by name (byte order): their
//     order means nothing to the server and drivers differ in it. Nested
//     documents keep their order: it matters there (sort, index keys).
//   - volatileFields (and helloFields for a hello) are left out, and
//     readConcern's afterClusterTime (causal consistency: the session's
//     last operation time); a readConcern left empty is left out.
//   - $db stays as sent; db fills it when the body has none (OP_QUERY).
//   - Top-level integral numbers (ordered, limit, batchSize, a count's
//     limit…, the first element's value too) are written as int64, so a
//     1 sent as int32, int64 or double compares equal; in documents,
//     filters, updates and pipelines the types are kept as sent.
func Canonicalize(body bsoncore.Document, seqs []wire.Sequence, db string) []byte {
	type field struct {
		key   []byte
		elem  bsoncore.Element
		seq   *wire.Sequence
		extra string
	}
	var (
		first  bsoncore.Element
		hello  bool
		hasDB  bool
		fields = make([]field, 0, 16)
	)
	each(body, func(key []byte, e bsoncore.Element) bool {
		if first == nil {
			first = e
			hello = strings.EqualFold(string(key), "hello") || strings.EqualFold(string(key), "ismaster")
			return true
		}
		if volatileFields[string(key)] || (hello && helloFields[string(key)]) {
			return true
		}
		if string(key) == "$db" {
			hasDB = true
		}
		fields = append(fields, field{key: key, elem: e})
		return true
	})
	if first == nil {
		return append([]byte(nil), body...)
	}
	for i := range seqs {
		fields = append(fields, field{key: []byte(seqs[i].Identifier), seq: &seqs[i]})
	}
	if !hasDB && db != "" {
		fields = append(fields, field{key: []byte("$db"), extra: db})
	}
	slices.SortStableFunc(fields, func(a, b field) int { return bytes.Compare(a.key, b.key) })

	out := make([]byte, 0, len(body)+seqLen(seqs)+len(db)+16)
	idx, out := bsoncore.ReserveLength(out)
	out = appendNormalized(out, first)
	for _, f := range fields {
		switch {
		case f.seq != nil:
			var aidx int32
			aidx, out = bsoncore.AppendArrayElementStart(out, string(f.key))
			for i, d := range f.seq.Documents {
				// An array element: type, key "0", "1"…, the document.
				out = append(out, byte(bsoncore.TypeEmbeddedDocument))
				out = strconv.AppendInt(out, int64(i), 10)
				out = append(out, 0)
				out = append(out, d...)
			}
			out, _ = bsoncore.AppendArrayEnd(out, aidx)
		case f.extra != "":
			out = bsoncore.AppendStringElement(out, string(f.key), f.extra)
		case string(f.key) == "readConcern":
			out = appendReadConcern(out, f.elem)
		default:
			out = appendNormalized(out, f.elem)
		}
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

func seqLen(seqs []wire.Sequence) int {
	n := 0
	for _, s := range seqs {
		n += len(s.Identifier) + 16
		for _, d := range s.Documents {
			n += len(d) + 8
		}
	}
	return n
}

// appendNormalized appends e, an integral number as int64.
func appendNormalized(dst []byte, e bsoncore.Element) []byte {
	switch bsoncore.Type(e[0]) {
	case bsoncore.TypeInt32, bsoncore.TypeDouble:
		key := e[1 : 1+bytes.IndexByte(e[1:], 0)]
		if n, ok := integer(valueOf(key, e)); ok {
			dst = append(dst, byte(bsoncore.TypeInt64))
			dst = append(dst, key...)
			dst = append(dst, 0)
			return bsoncore.AppendInt64(dst, n)
		}
	}
	return append(dst, e...)
}

// appendReadConcern appends readConcern without afterClusterTime, or
// nothing when that leaves it empty.
func appendReadConcern(dst []byte, e bsoncore.Element) []byte {
	d, ok := e.Value().DocumentOK()
	if !ok {
		return append(dst, e...)
	}
	elems, _ := d.Elements()
	kept := 0
	for _, x := range elems {
		if x.Key() != "afterClusterTime" {
			kept++
		}
	}
	if kept == 0 {
		return dst
	}
	if kept == len(elems) {
		return append(dst, e...)
	}
	idx, dst := bsoncore.AppendDocumentElementStart(dst, e.Key())
	for _, x := range elems {
		if x.Key() != "afterClusterTime" {
			dst = append(dst, x...)
		}
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}
