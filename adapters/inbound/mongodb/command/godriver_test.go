package command

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire/wiretest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// captureGo runs fn with a Go driver v2.10.0 client connected to a fresh
// Recorder and returns the commands it sent (decoded and analysed as the
// listener would), in order.
func captureGo(t *testing.T, opts *options.ClientOptions, fn func(ctx context.Context, c *mongo.Client) error) []*Command {
	t.Helper()
	rec, err := wiretest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ctx := context.Background()
	if opts == nil {
		opts = options.Client()
	}
	opts.ApplyURI("mongodb://" + rec.Addr() + "/?directConnection=true")
	client, err := mongo.Connect(opts)
	if err != nil {
		t.Fatal(err)
	}
	fnErr := fn(ctx, client)
	client.Disconnect(ctx)
	rec.Close()
	if fnErr != nil {
		t.Logf("the client's operations: %v", fnErr)
	}
	var out []*Command
	for _, raw := range rec.Messages() {
		out = append(out, analyseRaw(t, raw))
	}
	return out
}

// named returns the commands called name (any case), in order.
func named(cmds []*Command, name string) []*Command {
	var out []*Command
	for _, c := range cmds {
		if equalFold(c.Name, name) {
			out = append(out, c)
		}
	}
	return out
}

func equalFold(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }

// TestGoDriverCommands: what the Go driver v2.10.0 really sends for each
// kind of operation is analysed as documented.
func TestGoDriverCommands(t *testing.T) {
	d := func(k string, v any) bson.D { return bson.D{{Key: k, Value: v}} }
	tests := []struct {
		name      string
		op        func(ctx context.Context, c *mongo.Client) error
		command   string
		actions   string
		targets   string
		functions string
		write     bool
	}{
		{name: "FindOneAndDelete", command: "findAndModify", actions: "FIND_AND_MODIFY,DELETE", targets: "app.t", write: true,
			op: func(ctx context.Context, c *mongo.Client) error {
				return c.Database("app").Collection("t").FindOneAndDelete(ctx, d("a", 1)).Err()
			}},
		{name: "FindOneAndUpdate with upsert", command: "findAndModify", actions: "FIND_AND_MODIFY,UPDATE,INSERT", targets: "app.t", write: true,
			op: func(ctx context.Context, c *mongo.Client) error {
				return c.Database("app").Collection("t").FindOneAndUpdate(ctx, d("a", 1), d("$set", d("b", 2)),
					options.FindOneAndUpdate().SetUpsert(true)).Err()
			}},
		{name: "client BulkWrite (the bulkWrite command)", command: "bulkWrite", actions: "BULK_WRITE,INSERT,DELETE", targets: "app.t,app.u", write: true,
			op: func(ctx context.Context, c *mongo.Client) error {
				_, err := c.BulkWrite(ctx, []mongo.ClientBulkWrite{
					{Database: "app", Collection: "t", Model: mongo.NewClientInsertOneModel().SetDocument(d("a", 1))},
					{Database: "app", Collection: "u", Model: mongo.NewClientDeleteManyModel().SetFilter(d("a", 1))},
				})
				return err
			}},
		{name: "CreateIndex", command: "createIndexes", actions: "CREATE_INDEXES", targets: "app.t", write: true,
			op: func(ctx context.Context, c *mongo.Client) error {
				_, err := c.Database("app").Collection("t").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: d("a", 1)})
				return err
			}},
		{name: "DropIndex", command: "dropIndexes", actions: "DROP_INDEXES", targets: "app.t", write: true,
			op: func(ctx context.Context, c *mongo.Client) error {
				return c.Database("app").Collection("t").Indexes().DropOne(ctx, "a_1")
			}},
		{name: "Database.Drop", command: "dropDatabase", actions: "DROP_DATABASE", targets: "app", write: true,
			op: func(ctx context.Context, c *mongo.Client) error { return c.Database("app").Drop(ctx) }},
		{name: "renameCollection", command: "renameCollection", actions: "RENAME_COLLECTION", targets: "app.a,app.b", write: true,
			op: func(ctx context.Context, c *mongo.Client) error {
				return c.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "app.a"}, {Key: "to", Value: "app.b"}}).Err()
			}},
		{name: "createUser", command: "createUser", actions: "CREATE_USER", targets: "app", write: true,
			op: func(ctx context.Context, c *mongo.Client) error {
				return c.Database("app").RunCommand(ctx, bson.D{{Key: "createUser", Value: "bob"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}}).Err()
			}},
		{name: "Find with $where", command: "find", actions: "FIND,SERVER_JS", targets: "app.t", functions: "$where",
			op: func(ctx context.Context, c *mongo.Client) error {
				cur, err := c.Database("app").Collection("t").Find(ctx, d("$where", "this.a > 1"))
				if err == nil {
					cur.Close(ctx)
				}
				return err
			}},
		{name: "Aggregate with $lookup and $merge", command: "aggregate", actions: "AGGREGATE,AGGREGATE_WRITE", targets: "app.t,app.u,app.m", functions: "$merge", write: true,
			op: func(ctx context.Context, c *mongo.Client) error {
				cur, err := c.Database("app").Collection("t").Aggregate(ctx, mongo.Pipeline{
					d("$lookup", bson.D{{Key: "from", Value: "u"}, {Key: "localField", Value: "a"}, {Key: "foreignField", Value: "a"}, {Key: "as", Value: "x"}}),
					d("$merge", d("into", "m")),
				})
				if err == nil {
					cur.Close(ctx)
				}
				return err
			}},
		{name: "CountDocuments", command: "aggregate", actions: "AGGREGATE", targets: "app.t",
			op: func(ctx context.Context, c *mongo.Client) error {
				_, err := c.Database("app").Collection("t").CountDocuments(ctx, d("a", 1))
				return err
			}},
		{name: "EstimatedDocumentCount", command: "count", actions: "COUNT", targets: "app.t",
			op: func(ctx context.Context, c *mongo.Client) error {
				_, err := c.Database("app").Collection("t").EstimatedDocumentCount(ctx)
				return err
			}},
		{name: "Distinct", command: "distinct", actions: "DISTINCT", targets: "app.t",
			op: func(ctx context.Context, c *mongo.Client) error {
				return c.Database("app").Collection("t").Distinct(ctx, "a", d("b", 1)).Err()
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds := named(captureGo(t, nil, tt.op), tt.command)
			if len(cmds) != 1 {
				t.Fatalf("%d %s commands sent", len(cmds), tt.command)
			}
			c := cmds[0]
			if got := join(c.Analysis.Actions); got != tt.actions {
				t.Errorf("actions %s, want %s", got, tt.actions)
			}
			if got := join(c.Analysis.Targets); got != tt.targets {
				t.Errorf("targets %s, want %s", got, tt.targets)
			}
			if got := join(c.Analysis.Functions); got != tt.functions {
				t.Errorf("functions %s, want %s", got, tt.functions)
			}
			if c.Write != tt.write {
				t.Errorf("write %v, want %v", c.Write, tt.write)
			}
		})
	}
}

// TestGoDriverSessionFields: the handshake's appName, a transaction's
// fields, a client-side timeout's maxTimeMS and the SCRAM user, as the Go
// driver sends them; none of them changes the canonical bytes.
func TestGoDriverSessionFields(t *testing.T) {
	insert := func(ctx context.Context, c *mongo.Client) error {
		_, err := c.Database("app").Collection("t").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
		return err
	}
	plain := named(captureGo(t, nil, insert), "insert")
	if len(plain) != 1 {
		t.Fatalf("%d inserts", len(plain))
	}

	t.Run("handshake", func(t *testing.T) {
		cmds := captureGo(t, options.Client().SetAppName("claude hoop-approval=return").SetCompressors([]string{"zstd", "snappy"}), insert)
		if len(cmds) == 0 || !cmds[0].Hello || cmds[0].AppName != "claude hoop-approval=return" || join(cmds[0].Compression) != "zstd,snappy" {
			t.Fatalf("first command %+v", cmds[0])
		}
	})
	t.Run("transaction", func(t *testing.T) {
		cmds := captureGo(t, nil, func(ctx context.Context, c *mongo.Client) error {
			s, err := c.StartSession()
			if err != nil {
				return err
			}
			defer s.EndSession(ctx)
			_, err = s.WithTransaction(ctx, func(ctx context.Context) (any, error) {
				if err := insert(ctx, c); err != nil {
					return nil, err
				}
				cur, err := c.Database("app").Collection("t").Find(ctx, bson.D{})
				if err != nil {
					return nil, err
				}
				return nil, cur.Close(ctx)
			})
			return err
		})
		ins, find, commit := named(cmds, "insert"), named(cmds, "find"), named(cmds, "commitTransaction")
		if len(ins) != 1 || len(find) != 1 || len(commit) != 1 {
			t.Fatalf("%d inserts, %d finds, %d commits", len(ins), len(find), len(commit))
		}
		if !ins[0].InTransaction || !ins[0].StartTransaction || !ins[0].HasTxnNumber || ins[0].LSID == nil {
			t.Errorf("the transaction's first command %+v", ins[0])
		}
		if !find[0].InTransaction || find[0].StartTransaction || find[0].TxnNumber != ins[0].TxnNumber || !commit[0].InTransaction {
			t.Errorf("the transaction's next commands: find %+v, commit %+v", find[0], commit[0])
		}
		if !bytes.Equal(ins[0].CanonicalBytes(), plain[0].CanonicalBytes()) {
			t.Errorf("an insert in a transaction is another statement:\n%s\n%s", ins[0].Display(0), plain[0].Display(0))
		}
	})
	t.Run("retryable write", func(t *testing.T) {
		if !plain[0].HasTxnNumber || plain[0].InTransaction {
			t.Errorf("a retryable insert: %+v", plain[0])
		}
	})
	t.Run("client-side timeout", func(t *testing.T) {
		cmds := named(captureGo(t, options.Client().SetTimeout(time.Minute), insert), "insert")
		if len(cmds) != 1 || cmds[0].MaxTimeMS <= 0 {
			t.Fatalf("inserts %d, maxTimeMS %d", len(cmds), cmds[0].MaxTimeMS)
		}
		if !bytes.Equal(cmds[0].CanonicalBytes(), plain[0].CanonicalBytes()) {
			t.Errorf("maxTimeMS makes another statement:\n%s\n%s", cmds[0].Display(0), plain[0].Display(0))
		}
	})
	t.Run("SCRAM user", func(t *testing.T) {
		cmds := captureGo(t, options.Client().SetAuth(options.Credential{Username: "alice,=x", Password: "secret"}),
			func(ctx context.Context, c *mongo.Client) error { return c.Ping(ctx, nil) })
		var users []string
		for _, c := range cmds {
			if c.Auth != nil && c.Auth.User != "" {
				users = append(users, c.Auth.Mechanism+":"+c.Auth.User+"@"+c.Auth.Database)
			}
		}
		if len(users) == 0 || users[0] != "SCRAM-SHA-256:alice,=x@admin" {
			t.Fatalf("users seen %v", users)
		}
		for _, c := range cmds {
			if c.Auth != nil && bytes.Contains(c.Body, []byte("secret")) {
				t.Fatal("the password is on the wire in clear")
			}
		}
	})
}
