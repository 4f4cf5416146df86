package command

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire/wiretest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// scenarioOps are the commands of the cross-driver scenario, in order:
// the same six operations written for mongosh and Node (wire/testdata/drivers,
// captured with capture.go) and for the Go driver (goScenario).
var scenarioOps = []string{"delete", "insert", "find", "update", "aggregate", "drop"}

// goScenario runs the scenario with the Go driver v2.10.0.
func goScenario(ctx context.Context, t *testing.T, uri string) {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	coll := client.Database("test").Collection("t")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	must(err)
	_, err = coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 2}, {Key: "s", Value: "x"}},
	})
	must(err)
	cur, err := coll.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: 1}}}},
		options.Find().SetSort(bson.D{{Key: "a", Value: -1}}).SetLimit(5))
	must(err)
	must(cur.All(ctx, &[]bson.Raw{}))
	_, err = coll.UpdateMany(ctx, bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 2}}}})
	must(err)
	cur, err = coll.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "a", Value: 1}}}},
		{{Key: "$out", Value: "t2"}},
	})
	must(err)
	must(cur.All(ctx, &[]bson.Raw{}))
	must(coll.Drop(ctx))
}

// analyseRaw decodes one captured message (decompressing it) and analyses
// its command.
func analyseRaw(t *testing.T, raw []byte) *Command {
	t.Helper()
	msg, err := wire.Decompress(raw, 0)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := wire.ParseHeader(msg)
	if h.OpCode == wire.OpQuery {
		q, err := wire.DecodeQuery(msg)
		if err != nil {
			t.Fatal(err)
		}
		c, err := FromQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	m, err := wire.DecodeMsg(msg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := FromMsg(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// scenarioCommands keeps the scenario's commands from a capture, by name.
func scenarioCommands(t *testing.T, raws [][]byte) map[string]*Command {
	t.Helper()
	out := map[string]*Command{}
	for _, raw := range raws {
		c := analyseRaw(t, raw)
		for _, op := range scenarioOps {
			if c.Name == op && c.Database == "test" {
				if out[op] != nil {
					t.Fatalf("%s sent twice", op)
				}
				out[op] = c
			}
		}
	}
	for _, op := range scenarioOps {
		if out[op] == nil {
			t.Fatalf("no %s captured (got %d messages)", op, len(raws))
		}
	}
	return out
}

func capturedFiles(t *testing.T, dir string) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("..", "wire", "testdata", "drivers", dir, "*.bin"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no captures in wire/testdata/drivers/%s: %v", dir, err)
	}
	sort.Strings(names)
	var raws [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, b)
	}
	return raws
}

// TestDriversAgree: the same logical commands from the Go driver v2.10.0
// (captured live, with each compressor), mongosh 2.12.0 (plain and zlib)
// and the Node driver 7.9.0 (captured in wire/testdata/drivers) give the same
// canonical bytes, the same actions and targets, although each session has
// its own lsid and $clusterTime, and the Go driver writes $clusterTime's
// keyId as int64 where Node writes int32. (All three send documents,
// updates and deletes as OP_MSG document sequences today; a sequence and
// the same array in the body are compared in TestCanonical.)
func TestDriversAgree(t *testing.T) {
	ctx := context.Background()
	reference := scenarioCommands(t, capturedFiles(t, "mongosh"))
	clients := map[string]map[string]*Command{
		"mongosh zlib": scenarioCommands(t, capturedFiles(t, "mongosh-zlib")),
		"node":         scenarioCommands(t, capturedFiles(t, "node")),
	}
	for _, comp := range []string{"", "snappy", "zlib", "zstd"} {
		rec, err := wiretest.Start()
		if err != nil {
			t.Fatal(err)
		}
		uri := "mongodb://" + rec.Addr() + "/?directConnection=true"
		if comp != "" {
			uri += "&compressors=" + comp
		}
		goScenario(ctx, t, uri)
		rec.Close()
		raws := rec.Messages()
		name := "go " + comp
		clients[name] = scenarioCommands(t, raws)
		if comp != "" {
			compressed := 0
			for _, raw := range raws {
				if c, err := wire.DecodeCompressed(raw); err == nil {
					compressed++
					if got := c.CompressorID.String(); !strings.Contains(strings.ToLower(got), comp) {
						t.Errorf("%s: compressorId %v", name, got)
					}
				}
			}
			if compressed < len(scenarioOps) {
				t.Errorf("%s: only %d of %d messages were OP_COMPRESSED", name, compressed, len(raws))
			}
		}
		if comp == "" {
			seqs := 0
			for _, op := range scenarioOps {
				seqs += len(clients[name][op].Sequences)
			}
			if seqs == 0 {
				t.Errorf("the Go driver sent no document sequence")
			}
		}
	}
	for client, cmds := range clients {
		for _, op := range scenarioOps {
			want, got := reference[op], cmds[op]
			if !bytes.Equal(want.CanonicalBytes(), got.CanonicalBytes()) {
				t.Errorf("%s %s: canonical bytes differ from mongosh's\n mongosh: %s\n %s: %s", client, op,
					want.Display(0), client, got.Display(0))
			}
			if strings.Join(want.Analysis.Actions, ",") != strings.Join(got.Analysis.Actions, ",") ||
				strings.Join(want.Analysis.Targets, ",") != strings.Join(got.Analysis.Targets, ",") {
				t.Errorf("%s %s: analysis %+v, mongosh's %+v", client, op, got.Analysis, want.Analysis)
			}
		}
	}
	if got := strings.Join(reference["aggregate"].Analysis.Actions, ","); got != "AGGREGATE,AGGREGATE_WRITE" {
		t.Errorf("aggregate with $out: actions %s", got)
	}
}

// TestMongoshCommands: what mongosh 2.12.0 really sent for more kinds of
// operations (wire/testdata/drivers/mongosh-more) is analysed as
// documented.
func TestMongoshCommands(t *testing.T) {
	want := map[string]string{ // file → actions | targets | functions
		"02-findAndModify.bin":    "FIND_AND_MODIFY,DELETE | test.t | ",
		"03-createIndexes.bin":    "CREATE_INDEXES | test.t | ",
		"04-find.bin":             "FIND,SERVER_JS | test.t | $where",
		"05-insert.bin":           "INSERT | test.t | ",
		"06-delete.bin":           "DELETE | test.t | ",
		"07-renameCollection.bin": "RENAME_COLLECTION | test.t,test.u | ",
		"08-aggregate.bin":        "AGGREGATE,AGGREGATE_WRITE | test.t,test.u,rep.m | $merge",
		"09-dropDatabase.bin":     "DROP_DATABASE | app | ",
		"10-update.bin":           "UPDATE,INSERT | test.t | ",
	}
	names, _ := filepath.Glob(filepath.Join("..", "wire", "testdata", "drivers", "mongosh-more", "*.bin"))
	if len(names) != len(want) {
		t.Fatalf("%d captures, want %d", len(names), len(want))
	}
	for _, n := range names {
		raw, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		c := analyseRaw(t, raw)
		got := join(c.Analysis.Actions) + " | " + join(c.Analysis.Targets) + " | " + join(c.Analysis.Functions)
		if w := want[filepath.Base(n)]; got != w {
			t.Errorf("%s: %s, want %s", filepath.Base(n), got, w)
		}
	}
}

// TestLegacyHandshakeCaptures: the OP_QUERY isMaster mongosh and the Node
// driver open with is a hello for the listener, with mongosh's appName.
func TestLegacyHandshakeCaptures(t *testing.T) {
	for file, app := range map[string]string{"mongosh/01-ismaster.bin": "mongosh 2.12.0", "node/01-ismaster.bin": ""} {
		raw, err := os.ReadFile(filepath.Join("..", "wire", "testdata", "drivers", file))
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := wire.ParseHeader(raw); h.OpCode != wire.OpQuery {
			t.Fatalf("%s is %v", file, h.OpCode)
		}
		c := analyseRaw(t, raw)
		if !c.Hello || c.Database != "admin" || c.AppName != app || join(c.Analysis.Actions) != "HELLO" || c.Write {
			t.Errorf("%s: %+v", file, c)
		}
	}
}
