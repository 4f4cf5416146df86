package mongodb

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"slices"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// A client with compressors=zstd,zlib,snappy works end to end through the
// Sidecar, with each compressor: inserts and finds run, a deleteMany sent
// compressed is read and held, and its approved resend runs once. FerretDB
// has no OP_COMPRESSED, so the upstream here is a stand-in: a small
// compressing front (compressingFront) in front of the suite's upstream,
// which agrees to one compressor in its hello reply, decompresses what it
// receives and compresses its replies. The Sidecar forwards the client's
// compressed bytes as they are; the front counts them.
func TestCompressorsEndToEnd(t *testing.T) {
	t.Parallel() // slow (seeding, node start-up): overlaps with the others
	e := newEnv(t)
	for _, comp := range []string{"zstd", "zlib", "snappy"} {
		t.Run(comp, func(t *testing.T) {
			front, compressed := compressingFront(t, e.up.Addr, comp)
			t.Logf("upstream: stand-in compressing front (%s) in front of %s, because FerretDB has no OP_COMPRESSED", comp, e.up.Source)
			addr, _ := e.sidecar(listenerOpts{upstream: front})
			ctx := context.Background()
			name := "c_" + comp
			coll := e.client(addr, returnApp, url.Values{"compressors": {"zstd,zlib,snappy"}}).Database(e.db).Collection(name)
			if _, err := coll.InsertMany(ctx, docs(50, func(i int) bson.D { return bson.D{{Key: "a", Value: i % 2}} })); err != nil {
				t.Fatal(err)
			}
			if n, err := coll.CountDocuments(ctx, bson.D{{Key: "a", Value: 1}}); err != nil || n != 25 {
				t.Fatalf("count %d %v", n, err)
			}
			_, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
			id := heldID(t, err)
			e.cp.Approve(t, id)
			if res, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}}); err != nil || res.DeletedCount != 25 {
				t.Fatalf("approved resend: %+v %v", res, err)
			}
			if compressed.Load() == 0 {
				t.Fatal("the client sent nothing compressed: the test would prove nothing")
			}
			t.Logf("%d compressed messages reached the front through the Sidecar", compressed.Load())
		})
	}
}

// compressingFront is the stand-in upstream for OP_COMPRESSED: it listens
// on a random port and relays each connection to target, agreeing to
// compressor comp in hello replies, decompressing the client's
// OP_COMPRESSED messages (counted) and compressing its replies to them
// with the same compressor.
func compressingFront(t *testing.T, target, comp string) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go frontConn(c, target, comp, &n)
		}
	}()
	return ln.Addr().String(), &n
}

func frontConn(c net.Conn, target, comp string, n *atomic.Int64) {
	defer c.Close()
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	for {
		raw, err := wire.ReadMessage(c, 0)
		if err != nil {
			return
		}
		var cid wire.CompressorID
		wasCompressed := false
		if h, _ := wire.ParseHeader(raw); h.OpCode == wire.OpCompressed {
			cm, err := wire.DecodeCompressed(raw)
			if err != nil {
				return
			}
			cid, wasCompressed = cm.CompressorID, true
			n.Add(1)
			if raw, err = wire.Decompress(raw, 0); err != nil {
				return
			}
		}
		req, _ := wire.ParseHeader(raw)
		hello, moreToCome := false, false
		switch req.OpCode {
		case wire.OpMsg:
			m, err := wire.DecodeMsg(raw)
			if err != nil {
				return
			}
			moreToCome = m.MoreToCome()
			first, _ := m.Body.IndexErr(0)
			hello = isHelloName(first.Key())
		case wire.OpQuery:
			hello = true // the legacy handshake
		}
		if _, err := up.Write(raw); err != nil || moreToCome {
			if err != nil {
				return
			}
			continue
		}
		reply, err := wire.ReadMessage(up, 0)
		if err != nil {
			return
		}
		if hello {
			reply = withCompression(req, reply, comp)
		}
		if wasCompressed {
			if reply, err = wire.Compress(reply, cid); err != nil {
				return
			}
		}
		if _, err := c.Write(reply); err != nil {
			if !errors.Is(err, io.EOF) {
				return
			}
		}
	}
}

func isHelloName(k string) bool { return k == "hello" || k == "isMaster" || k == "ismaster" }

// withCompression returns a hello reply with compression: [comp] added.
func withCompression(req wire.Header, reply []byte, comp string) []byte {
	return editHello(req, reply, []string{"compression"}, func(b *bsoncore.DocumentBuilder) {
		b.AppendArray("compression", bsoncore.NewArrayBuilder().AppendString(comp).Build())
	})
}

// editHello returns a hello reply (OP_MSG or OP_REPLY) without the fields
// drop and with what add appends; the reply as it was when it cannot be
// decoded.
func editHello(req wire.Header, reply []byte, drop []string, add func(*bsoncore.DocumentBuilder)) []byte {
	h, _ := wire.ParseHeader(reply)
	var body bsoncore.Document
	switch h.OpCode {
	case wire.OpMsg:
		m, err := wire.DecodeMsg(reply)
		if err != nil {
			return reply
		}
		body = m.Body
	case wire.OpReply:
		r, err := wire.DecodeReply(reply)
		if err != nil || len(r.Documents) == 0 {
			return reply
		}
		body = r.Documents[0]
	default:
		return reply
	}
	b := bsoncore.NewDocumentBuilder()
	elems, _ := body.Elements()
	for _, el := range elems {
		if !slices.Contains(drop, el.Key()) {
			b.AppendValue(el.Key(), el.Value())
		}
	}
	add(b)
	if h.OpCode == wire.OpReply {
		return wire.ReplyQuery(req, h.RequestID, b.Build())
	}
	return wire.ReplyMsg(req, h.RequestID, b.Build())
}
