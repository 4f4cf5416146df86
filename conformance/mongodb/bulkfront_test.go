package mongodb

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// bulkFront is the stand-in upstream for MongoDB 8.0's client-level
// bulkWrite command, which FerretDB v1.24.2 lacks (and it reports wire
// version 21, so drivers would not send it): a front (front_test.go) that
// reports maxWireVersion 25 in its hello replies, runs each bulkWrite
// itself, one operation at a time against target with the Go driver
// (insertOne, updateOne/updateMany, deleteOne/deleteMany into the
// namespace its nsInfo names), records what it ran, and answers as
// MongoDB 8.0 does (ok, nErrors, nInserted, nMatched, nModified,
// nUpserted, nDeleted and a cursor of per-operation results unless
// errorsOnly). Every other message is relayed to target unchanged.
type bulkFront struct {
	front[struct{}]
	direct *mongo.Client

	mu  sync.Mutex
	ran []string // "insert db.c", "delete db.c {filter}"…, one per operation run, in order
}

func startBulkFront(t *testing.T, target string) *bulkFront {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + target + "/?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	f := &bulkFront{direct: c}
	f.hello = func(_ *struct{}, m frontMsg, reply []byte) []byte {
		return editHello(m.Req, reply, []string{"maxWireVersion"}, func(b *bsoncore.DocumentBuilder) {
			b.AppendInt32("maxWireVersion", 25)
		})
	}
	f.answer = func(_ *struct{}, _ net.Conn, m frontMsg) (bsoncore.Document, bool) {
		if m.Name != "bulkWrite" {
			return nil, false
		}
		return f.bulkWrite(m), true
	}
	f.start(t, target, nil)
	return f
}

// Ran returns the operations the front ran so far.
func (f *bulkFront) Ran() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ran...)
}

// docsOf is a bulkWrite's field name: its document sequence, else its
// body array.
func docsOf(m frontMsg, name string) []bsoncore.Document {
	for _, s := range m.Seqs {
		if s.Identifier == name {
			return s.Documents
		}
	}
	var out []bsoncore.Document
	arr, _ := m.Body.Lookup(name).ArrayOK()
	vals, _ := arr.Values()
	for _, v := range vals {
		if d, ok := v.DocumentOK(); ok {
			out = append(out, d)
		}
	}
	return out
}

// bulkWrite runs a bulkWrite command's operations in order (stopping at the
// first error when ordered, the default) and builds MongoDB 8.0's reply.
func (f *bulkFront) bulkWrite(m frontMsg) bsoncore.Document {
	ctx := context.Background()
	ns := docsOf(m, "nsInfo")
	ordered := true
	if v, ok := m.Body.Lookup("ordered").BooleanOK(); ok {
		ordered = v
	}
	errorsOnly, _ := m.Body.Lookup("errorsOnly").BooleanOK()
	var nIns, nMatch, nMod, nUps, nDel, nErr int32
	results := bsoncore.NewArrayBuilder()
	for i, op := range docsOf(m, "ops") {
		first, err := op.IndexErr(0)
		if err != nil {
			return errorReply("empty bulkWrite operation")
		}
		idx, _ := first.Value().AsInt64OK()
		if int(idx) >= len(ns) || idx < 0 {
			return errorReply(fmt.Sprintf("operation %d names nsInfo %d of %d", i, idx, len(ns)))
		}
		full, _ := ns[idx].Lookup("ns").StringValueOK()
		dbName, collName, _ := strings.Cut(full, ".")
		coll := f.direct.Database(dbName).Collection(collName)
		fd, _ := op.Lookup("filter").DocumentOK()
		filter := bson.Raw(fd)
		multi, _ := op.Lookup("multi").BooleanOK()
		res := bsoncore.NewDocumentBuilder().AppendDouble("ok", 1).AppendInt32("idx", int32(i))
		var runErr error
		switch first.Key() {
		case "insert":
			doc, _ := op.Lookup("document").DocumentOK()
			_, runErr = coll.InsertOne(ctx, bson.Raw(doc))
			if runErr == nil {
				nIns++
				res.AppendInt32("n", 1)
			}
		case "delete":
			var r *mongo.DeleteResult
			if multi {
				r, runErr = coll.DeleteMany(ctx, filter)
			} else {
				r, runErr = coll.DeleteOne(ctx, filter)
			}
			if runErr == nil {
				nDel += int32(r.DeletedCount)
				res.AppendInt32("n", int32(r.DeletedCount))
			}
		case "update":
			upsert, _ := op.Lookup("upsert").BooleanOK()
			o := options.UpdateMany().SetUpsert(upsert)
			var r *mongo.UpdateResult
			md, _ := op.Lookup("updateMods").DocumentOK()
			mods := bson.Raw(md)
			if multi {
				r, runErr = coll.UpdateMany(ctx, filter, mods, o)
			} else {
				r, runErr = coll.UpdateOne(ctx, filter, mods, options.UpdateOne().SetUpsert(upsert))
			}
			if runErr == nil {
				nMatch += int32(r.MatchedCount)
				nMod += int32(r.ModifiedCount)
				nUps += int32(r.UpsertedCount)
				res.AppendInt32("n", int32(r.MatchedCount+r.UpsertedCount)).AppendInt32("nModified", int32(r.ModifiedCount))
			}
		default:
			return errorReply("unknown bulkWrite operation " + first.Key())
		}
		f.mu.Lock()
		f.ran = append(f.ran, strings.TrimSpace(fmt.Sprintf("%s %s %s", first.Key(), full, fd)))
		f.mu.Unlock()
		if runErr != nil {
			nErr++
			results.AppendDocument(bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendInt32("idx", int32(i)).
				AppendInt32("code", 2).AppendString("errmsg", runErr.Error()).Build())
			if ordered {
				break
			}
			continue
		}
		if !errorsOnly {
			results.AppendDocument(res.Build())
		}
	}
	return bsoncore.NewDocumentBuilder().
		AppendDouble("ok", 1).
		AppendDocument("cursor", bsoncore.NewDocumentBuilder().
			AppendInt64("id", 0).AppendString("ns", "admin.$cmd.bulkWrite").
			AppendArray("firstBatch", results.Build()).Build()).
		AppendInt32("nErrors", nErr).AppendInt32("nInserted", nIns).AppendInt32("nMatched", nMatch).
		AppendInt32("nModified", nMod).AppendInt32("nUpserted", nUps).AppendInt32("nDeleted", nDel).
		Build()
}

// errorReply is a server's refusal of a command it cannot run.
func errorReply(msg string) bsoncore.Document { return serverError(2, "BadValue", msg) }
