package command

import (
	"sort"
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
	elems, _ := body.Elements()
	if len(elems) == 0 {
		return append([]byte(nil), body...)
	}
	hello := false
	switch strings.ToLower(elems[0].Key()) {
	case "hello", "ismaster":
		hello = true
	}
	type field struct {
		key   string
		elem  bsoncore.Element
		seq   *wire.Sequence
		extra string
	}
	rest := make([]field, 0, len(elems)+len(seqs))
	hasDB := false
	for _, e := range elems[1:] {
		k := e.Key()
		if volatileFields[k] || (hello && helloFields[k]) {
			continue
		}
		if k == "$db" {
			hasDB = true
		}
		rest = append(rest, field{key: k, elem: e})
	}
	for i := range seqs {
		rest = append(rest, field{key: seqs[i].Identifier, seq: &seqs[i]})
	}
	if !hasDB && db != "" {
		rest = append(rest, field{key: "$db", extra: db})
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].key < rest[j].key })

	out := make([]byte, 0, len(body)+seqLen(seqs)+len(db)+16)
	idx, out := bsoncore.ReserveLength(out)
	out = appendNormalized(out, elems[0])
	for _, f := range rest {
		switch {
		case f.seq != nil:
			var aidx int32
			aidx, out = bsoncore.AppendArrayElementStart(out, f.key)
			for i, d := range f.seq.Documents {
				out = bsoncore.AppendDocumentElement(out, strconv.Itoa(i), d)
			}
			out, _ = bsoncore.AppendArrayEnd(out, aidx)
		case f.extra != "":
			out = bsoncore.AppendStringElement(out, f.key, f.extra)
		case f.key == "readConcern":
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
	v := e.Value()
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeDouble:
		if n, ok := integer(v); ok {
			return bsoncore.AppendInt64Element(dst, e.Key(), n)
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
