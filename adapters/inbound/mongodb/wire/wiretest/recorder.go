// Package wiretest is test support for the mongodb listener's codec and
// analysis: Recorder, a minimal MongoDB-speaking server on 127.0.0.1 that
// records every message a real client (the Go driver, the Node driver,
// mongosh) sends and answers just enough for the client to proceed. It is
// a capture device, not a database: queries return empty cursors and
// writes report n without storing anything. Tests only.
package wiretest

import (
	"net"
	"strings"
	"sync"
	"time"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Recorder is the capture server. Messages are recorded as received (an
// OP_COMPRESSED stays compressed).
type Recorder struct {
	ln   net.Listener
	mu   sync.Mutex
	msgs [][]byte
	wg   sync.WaitGroup
	// conns are the open client connections, closed by Close.
	conns map[net.Conn]bool
}

// Start listens on 127.0.0.1:0 and serves until Close.
func Start() (*Recorder, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Recorder{ln: ln, conns: map[net.Conn]bool{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr is the "host:port" clients dial.
func (r *Recorder) Addr() string { return r.ln.Addr().String() }

// Messages returns the messages received so far, in arrival order per
// connection (connections interleave).
func (r *Recorder) Messages() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.msgs...)
}

// Reset forgets the messages received so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.msgs = nil
	r.mu.Unlock()
}

// Close stops the server and its connections and waits for them.
func (r *Recorder) Close() {
	r.ln.Close()
	r.mu.Lock()
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *Recorder) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		r.conns[c] = true
		r.mu.Unlock()
		r.wg.Add(1)
		go r.serve(c)
	}
}

func (r *Recorder) serve(c net.Conn) {
	defer r.wg.Done()
	defer func() {
		r.mu.Lock()
		delete(r.conns, c)
		r.mu.Unlock()
		c.Close()
	}()
	var reqID int32
	for {
		raw, err := wire.ReadMessage(c, 0)
		if err != nil {
			return
		}
		r.mu.Lock()
		r.msgs = append(r.msgs, raw)
		r.mu.Unlock()
		msg, err := wire.Decompress(raw, 0)
		if err != nil {
			return
		}
		h, _ := wire.ParseHeader(msg)
		reqID++
		var out []byte
		switch h.OpCode {
		case wire.OpQuery:
			q, err := wire.DecodeQuery(msg)
			if err != nil {
				return
			}
			out = wire.ReplyQuery(h, reqID, answer(q.Query, nil, r.Addr()))
		case wire.OpMsg:
			m, err := wire.DecodeMsg(msg)
			if err != nil {
				return
			}
			if m.MoreToCome() {
				continue
			}
			out = wire.ReplyMsg(h, reqID, answer(m.Body, m.Sequences, r.Addr()))
		default:
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// answer builds the reply document to a command. The recorder presents
// itself as the primary of a one-member replica set "rs0" on MongoDB 8.0
// (wire version 25), so drivers use transactions, retryable writes and the
// bulkWrite command with it; authentication always fails.
func answer(body bsoncore.Document, seqs []wire.Sequence, addr string) bsoncore.Document {
	first, err := body.IndexErr(0)
	if err != nil {
		return errorReply("empty command")
	}
	name := first.Key()
	db, _ := body.Lookup("$db").StringValueOK()
	coll, _ := first.Value().StringValueOK()
	b := bsoncore.NewDocumentBuilder()
	switch strings.ToLower(name) {
	case "hello", "ismaster":
		b.AppendBoolean("helloOk", true).
			AppendBoolean("ismaster", true).
			AppendBoolean("isWritablePrimary", true).
			AppendInt32("maxBsonObjectSize", 16*1024*1024).
			AppendInt32("maxMessageSizeBytes", wire.DefaultMaxMessageSize).
			AppendInt32("maxWriteBatchSize", 100000).
			AppendDateTime("localTime", time.Now().UnixMilli()).
			AppendInt32("logicalSessionTimeoutMinutes", 30).
			AppendInt32("connectionId", 1).
			AppendInt32("minWireVersion", 0).
			AppendInt32("maxWireVersion", 25).
			AppendBoolean("readOnly", false).
			AppendString("setName", "rs0").
			AppendArray("hosts", bsoncore.NewArrayBuilder().AppendString(addr).Build()).
			AppendString("primary", addr).
			AppendString("me", addr).
			AppendInt32("setVersion", 1).
			AppendObjectID("electionId", [12]byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1})
		if comp := firstSupported(body); comp != "" {
			b.AppendArray("compression", bsoncore.NewArrayBuilder().AppendString(comp).Build())
		}
	case "find", "aggregate", "listcollections", "listindexes":
		ns := db + "." + coll
		if coll == "" {
			ns = db + ".$cmd.aggregate"
		}
		b.AppendDocument("cursor", bsoncore.NewDocumentBuilder().
			AppendInt64("id", 0).AppendString("ns", ns).
			AppendArray("firstBatch", bsoncore.NewArrayBuilder().Build()).Build())
	case "insert":
		n := 0
		for _, s := range seqs {
			if s.Identifier == "documents" {
				n += len(s.Documents)
			}
		}
		if arr, ok := body.Lookup("documents").ArrayOK(); ok {
			vals, _ := arr.Values()
			n += len(vals)
		}
		b.AppendInt32("n", int32(n))
	case "update":
		b.AppendInt32("n", 0).AppendInt32("nModified", 0)
	case "delete":
		b.AppendInt32("n", 0)
	case "bulkwrite":
		n := int32(0)
		for _, s := range seqs {
			if s.Identifier == "ops" {
				n = int32(len(s.Documents))
			}
		}
		b.AppendDocument("cursor", bsoncore.NewDocumentBuilder().
			AppendInt64("id", 0).AppendString("ns", "admin.$cmd.bulkWrite").
			AppendArray("firstBatch", bsoncore.NewArrayBuilder().Build()).Build()).
			AppendInt32("nErrors", 0).AppendInt32("nInserted", n).AppendInt32("nMatched", 0).
			AppendInt32("nModified", 0).AppendInt32("nUpserted", 0).AppendInt32("nDeleted", 0)
	case "saslstart", "saslcontinue", "authenticate":
		return bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendString("errmsg", "Authentication failed.").
			AppendInt32("code", 18).AppendString("codeName", "AuthenticationFailed").Build()
	case "findandmodify":
		b.AppendNull("value").AppendDocument("lastErrorObject", bsoncore.NewDocumentBuilder().
			AppendInt32("n", 0).AppendBoolean("updatedExisting", false).Build())
	case "count":
		b.AppendInt32("n", 0)
	case "distinct":
		b.AppendArray("values", bsoncore.NewArrayBuilder().Build())
	case "buildinfo":
		b.AppendString("version", "7.0.0").
			AppendArray("versionArray", bsoncore.NewArrayBuilder().AppendInt32(7).AppendInt32(0).AppendInt32(0).AppendInt32(0).Build())
	case "getlog":
		b.AppendArray("log", bsoncore.NewArrayBuilder().Build()).AppendInt32("totalLinesWritten", 0)
	}
	b.AppendDouble("ok", 1)
	ts := uint32(time.Now().Unix())
	b.AppendDocument("$clusterTime", bsoncore.NewDocumentBuilder().
		AppendTimestamp("clusterTime", ts, 1).
		AppendDocument("signature", bsoncore.NewDocumentBuilder().
			AppendBinary("hash", 0, make([]byte, 20)).AppendInt64("keyId", 0).Build()).Build())
	b.AppendTimestamp("operationTime", ts, 1)
	return b.Build()
}

// firstSupported is the first compressor of a hello's compression list
// that the codec decompresses.
func firstSupported(body bsoncore.Document) string {
	arr, ok := body.Lookup("compression").ArrayOK()
	if !ok {
		return ""
	}
	vals, _ := arr.Values()
	for _, v := range vals {
		switch s, _ := v.StringValueOK(); s {
		case "snappy", "zlib", "zstd":
			return s
		}
	}
	return ""
}

func errorReply(msg string) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendString("errmsg", msg).
		AppendInt32("code", 59).AppendString("codeName", "CommandNotFound").Build()
}
