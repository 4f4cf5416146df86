package main

import (
	"net"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// serveStub answers on ln as a minimal in-memory server, to measure what
// the listener adds without a real server's own cost: hello/isMaster (as
// OP_MSG or legacy OP_QUERY) with a standalone's fields, find with one
// document whose _id is the filter's, insert with n, and ok: 1 to anything
// else. It stores nothing.
func serveStub(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go stubConn(c)
	}
}

func stubConn(c net.Conn) {
	defer c.Close()
	var buf []byte
	var id int32
	for {
		msg, err := wire.ReadMessageBuf(c, buf, 0)
		if err != nil {
			return
		}
		buf = msg
		id++
		h, _ := wire.ParseHeader(msg)
		var out []byte
		switch h.OpCode {
		case wire.OpQuery:
			q, err := wire.DecodeQuery(msg)
			if err != nil {
				return
			}
			out = wire.ReplyQuery(h, id, answer(q.Query))
		case wire.OpMsg:
			m, err := wire.DecodeMsg(msg)
			if err != nil {
				return
			}
			if m.MoreToCome() {
				continue
			}
			out = wire.ReplyMsg(h, id, answer(m.Body))
		default:
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

func answer(cmd bsoncore.Document) bsoncore.Document {
	first, err := cmd.IndexErr(0)
	if err != nil {
		return bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendString("errmsg", "empty command").Build()
	}
	b := bsoncore.NewDocumentBuilder()
	switch first.Key() {
	case "hello", "isMaster", "ismaster":
		b.AppendBoolean("isWritablePrimary", true).AppendBoolean("ismaster", true).
			AppendInt32("maxBsonObjectSize", 16<<20).AppendInt32("maxMessageSizeBytes", 48_000_000).
			AppendInt32("maxWriteBatchSize", 100_000).AppendInt32("minWireVersion", 0).AppendInt32("maxWireVersion", 21).
			AppendInt32("logicalSessionTimeoutMinutes", 30).AppendInt32("connectionId", 1)
	case "find":
		coll, _ := first.Value().StringValueOK()
		db, _ := cmd.Lookup("$db").StringValueOK()
		d := bsoncore.NewDocumentBuilder()
		if v, err := cmd.LookupErr("filter", "_id"); err == nil {
			d.AppendValue("_id", v)
		}
		d.AppendString("name", "item").AppendInt32("price", 42)
		b.AppendDocument("cursor", bsoncore.NewDocumentBuilder().
			AppendArray("firstBatch", bsoncore.NewArrayBuilder().AppendDocument(d.Build()).Build()).
			AppendInt64("id", 0).AppendString("ns", db+"."+coll).Build())
	case "insert":
		docs, _ := cmd.Lookup("documents").ArrayOK()
		n := 0
		if vals, err := docs.Values(); err == nil {
			n = len(vals)
		}
		b.AppendInt32("n", int32(n))
	}
	return b.AppendDouble("ok", 1).Build()
}
