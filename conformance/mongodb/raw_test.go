package mongodb

import (
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

// The legacy handshake: an OP_QUERY isMaster against admin.$cmd (older
// drivers and tools send it first) is forwarded and answered with the
// upstream's OP_REPLY; a held command sent as an OP_QUERY is answered with
// an OP_REPLY carrying the denial. A malformed message then closes that
// connection only (the sidecar logs it); another connection keeps working.
func TestLegacyOpQueryAndMalformedMessage(t *testing.T) {
	e := newEnv(t)
	addr, s := e.sidecar(listenerOpts{})
	e.seed("t", bson.D{{Key: "a", Value: 1}})
	c := dialRaw(t, addr)
	other := dialRaw(t, addr)

	isMaster := (&wire.Query{Header: wire.Header{RequestID: 1}, FullCollectionName: "admin.$cmd", NumberToReturn: -1,
		Query: bsoncore.NewDocumentBuilder().AppendInt32("isMaster", 1).
			AppendDocument("client", bsoncore.NewDocumentBuilder().AppendDocument("application",
				bsoncore.NewDocumentBuilder().AppendString("name", returnApp).Build()).Build()).Build()}).Append(nil)
	rep := roundTrip(t, c, isMaster)
	if _, ok := rep.Lookup("maxMessageSizeBytes").AsInt64OK(); !ok {
		t.Fatalf("isMaster through the Sidecar: %s", rep)
	}
	del := (&wire.Query{Header: wire.Header{RequestID: 2}, FullCollectionName: e.db + ".$cmd", NumberToReturn: -1,
		Query: bsoncore.NewDocumentBuilder().AppendString("delete", "t").AppendArray("deletes", bsoncore.NewArrayBuilder().
			AppendDocument(bsoncore.NewDocumentBuilder().AppendDocument("q", bsoncore.NewDocumentBuilder().AppendInt32("a", 1).Build()).
				AppendInt32("limit", 0).Build()).Build()).Build()}).Append(nil)
	rep = roundTrip(t, c, del)
	if code, _ := rep.Lookup("code").Int32OK(); code != 13 || len(approvalIDs(rep.String())) != 1 {
		t.Fatalf("held OP_QUERY delete answered %s", rep)
	}

	// A messageLength of 16 with an OP_MSG opCode: no flagBits, no body.
	if _, err := c.Write([]byte{16, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0xdd, 0x07, 0, 0}); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("the listener answered a malformed message instead of closing the connection")
	}
	s.WaitFor(t, "mongodb client sent a malformed message; connection closed", 10*time.Second)
	ping := &wire.Msg{Header: wire.Header{RequestID: 9}, Body: bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()}
	if ok, _ := roundTrip(t, other, ping.Append(nil)).Lookup("ok").AsFloat64OK(); ok != 1 {
		t.Fatal("another connection stopped working")
	}
	if e.count("t", bson.D{}) != 1 {
		t.Fatal("the held delete ran")
	}
}

func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip sends one request and returns the reply's document (OP_MSG
// body or OP_REPLY's first document), checking responseTo.
func roundTrip(t *testing.T, c net.Conn, req []byte) bsoncore.Document {
	t.Helper()
	h, _ := wire.ParseHeader(req)
	if _, err := c.Write(req); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	raw, err := wire.ReadMessage(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	rh, _ := wire.ParseHeader(raw)
	if rh.ResponseTo != h.RequestID {
		t.Fatalf("responseTo %d, want %d", rh.ResponseTo, h.RequestID)
	}
	switch rh.OpCode {
	case wire.OpReply:
		if h.OpCode != wire.OpQuery {
			t.Fatal("an OP_REPLY to an OP_MSG")
		}
		r, err := wire.DecodeReply(raw)
		if err != nil || len(r.Documents) != 1 {
			t.Fatalf("OP_REPLY: %v", err)
		}
		return r.Documents[0]
	case wire.OpMsg:
		if h.OpCode != wire.OpMsg {
			t.Fatal("an OP_MSG reply to an OP_QUERY")
		}
		m, err := wire.DecodeMsg(raw)
		if err != nil {
			t.Fatal(err)
		}
		return m.Body
	}
	t.Fatalf("reply opCode %d", rh.OpCode)
	return nil
}
