package command

import (
	"errors"
	"testing"

	"github.com/hoophq/sidecar/adapters/inbound/mongodb/wire"
)

func TestAnalysis(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		seqs      []wire.Sequence
		actions   string
		targets   string
		functions string
		write     bool
	}{
		{name: "find", body: `{"find": "t", "filter": {"a": 1}, "$db": "test"}`, actions: "FIND", targets: "test.t"},
		{name: "find with $where", body: `{"find": "t", "filter": {"$where": "this.a > 1"}, "$db": "test"}`,
			actions: "FIND,SERVER_JS", targets: "test.t", functions: "$where"},
		{name: "find with BSON code", body: `{"find": "t", "filter": {"$where": {"$code": "this.a > 1"}}, "$db": "test"}`,
			actions: "FIND,SERVER_JS", targets: "test.t", functions: "$where"},
		{name: "command names match any case", body: `{"DELETE": "t", "deletes": [], "$db": "test"}`, actions: "DELETE", targets: "test.t", write: true},
		{name: "insert", body: `{"insert": "t", "$db": "test"}`, seqs: []wire.Sequence{sequence(t, "documents", `{"$where": "data, not code"}`)},
			actions: "INSERT", targets: "test.t", write: true},
		{name: "update with a pipeline using $function", body: `{"update": "t", "$db": "test"}`,
			seqs:    []wire.Sequence{sequence(t, "updates", `{"q": {}, "u": [{"$set": {"b": {"$function": {"body": "function(){return 1}", "args": [], "lang": "js"}}}}]}`)},
			actions: "UPDATE,SERVER_JS", targets: "test.t", functions: "$function", write: true},
		{name: "update with upsert also inserts", body: `{"update": "t", "updates": [{"q": {"a": 1}, "u": {"$set": {"b": 1}}}, {"q": {"a": 2}, "u": {"b": 2}, "upsert": true}], "$db": "test"}`,
			actions: "UPDATE,INSERT", targets: "test.t", write: true},
		{name: "findAndModify upsert", body: `{"findAndModify": "t", "query": {"a": 1}, "update": {"$set": {"b": 1}}, "upsert": true, "$db": "test"}`,
			actions: "FIND_AND_MODIFY,UPDATE,INSERT", targets: "test.t", write: true},
		{name: "delete", body: `{"delete": "t", "deletes": [{"q": {"a": 1}, "limit": 0}], "ordered": false, "$db": "test"}`,
			actions: "DELETE", targets: "test.t", write: true},
		{name: "findAndModify remove", body: `{"findAndModify": "t", "query": {"a": 1}, "remove": true, "$db": "test"}`,
			actions: "FIND_AND_MODIFY,DELETE", targets: "test.t", write: true},
		{name: "findandmodify update", body: `{"findandmodify": "t", "query": {"a": 1}, "update": {"$inc": {"n": 1}}, "$db": "test"}`,
			actions: "FIND_AND_MODIFY,UPDATE", targets: "test.t", write: true},
		{name: "aggregate read", body: `{"aggregate": "t", "pipeline": [{"$match": {"a": 1}}], "cursor": {}, "$db": "test"}`,
			actions: "AGGREGATE", targets: "test.t"},
		{name: "aggregate $out", body: `{"aggregate": "t", "pipeline": [{"$match": {"a": 1}}, {"$out": "t2"}], "cursor": {}, "$db": "test"}`,
			actions: "AGGREGATE,AGGREGATE_WRITE", targets: "test.t,test.t2", functions: "$out", write: true},
		{name: "aggregate $out to another db", body: `{"aggregate": "t", "pipeline": [{"$out": {"db": "other", "coll": "t2"}}], "cursor": {}, "$db": "test"}`,
			actions: "AGGREGATE,AGGREGATE_WRITE", targets: "test.t,other.t2", functions: "$out", write: true},
		{name: "aggregate $merge into db.coll", body: `{"aggregate": "t", "pipeline": [{"$merge": {"into": {"db": "rep", "coll": "m"}}}], "cursor": {}, "$db": "test"}`,
			actions: "AGGREGATE,AGGREGATE_WRITE", targets: "test.t,rep.m", functions: "$merge", write: true},
		{name: "aggregate $merge nested in $facet counts", body: `{"aggregate": "t", "pipeline": [{"$facet": {"x": [{"$merge": "m"}]}}], "cursor": {}, "$db": "test"}`,
			actions: "AGGREGATE,AGGREGATE_WRITE", targets: "test.t,test.m", functions: "$merge", write: true},
		{name: "aggregate $lookup and $unionWith name their collections", body: `{"aggregate": "t", "pipeline": [{"$lookup": {"from": "u", "as": "x", "pipeline": [{"$unionWith": {"coll": "v"}}]}}], "cursor": {}, "$db": "test"}`,
			actions: "AGGREGATE", targets: "test.t,test.u,test.v"},
		{name: "aggregate $accumulator", body: `{"aggregate": "t", "pipeline": [{"$group": {"_id": null, "x": {"$accumulator": {}}}}], "cursor": {}, "$db": "test"}`,
			actions: "AGGREGATE,SERVER_JS", targets: "test.t", functions: "$accumulator"},
		{name: "database aggregate", body: `{"aggregate": 1, "pipeline": [{"$currentOp": {}}], "cursor": {}, "$db": "admin"}`,
			actions: "AGGREGATE", targets: "admin"},
		// Servers 3.6 and 4.0 run the $out of an explained aggregate at
		// executionStats verbosity (SERVER-38063; 4.2 refuses it): the
		// explain is held as the aggregate would be.
		{name: "explain of an aggregate with $out writes", body: `{"explain": {"aggregate": "t", "pipeline": [{"$match": {"$where": "1"}}, {"$out": "t2"}]}, "verbosity": "executionStats", "$db": "test"}`,
			actions: "EXPLAIN,SERVER_JS,AGGREGATE_WRITE", targets: "test.t,test.t2", functions: "$where,$out", write: true},
		{name: "explain of $merge nested in a $facet writes", body: `{"explain": {"aggregate": "t", "pipeline": [{"$facet": {"a": [{"$merge": {"into": "m"}}]}}]}, "$db": "test"}`,
			actions: "EXPLAIN,AGGREGATE_WRITE", targets: "test.t,test.m", functions: "$merge", write: true},
		// Commands of test builds and old servers that the table leaves
		// UNKNOWN still say what they do, so a rule on DELETE or INSERT
		// holds them too.
		{name: "emptycapped deletes", body: `{"emptycapped": "t", "$db": "test"}`,
			actions: "UNKNOWN,DELETE", targets: "test.t", write: true},
		{name: "captrunc deletes", body: `{"captrunc": "t", "n": 1, "$db": "test"}`,
			actions: "UNKNOWN,DELETE", targets: "test.t", write: true},
		{name: "godinsert inserts", body: `{"godinsert": "t", "obj": {"a": 1}, "$db": "test"}`,
			actions: "UNKNOWN,INSERT", targets: "test.t", write: true},
		{name: "doTxn applies oplog entries", body: `{"doTxn": [{"op": "d", "ns": "test.u", "o": {"_id": 1}}], "txnNumber": 1, "$db": "admin"}`,
			actions: "UNKNOWN,DELETE", targets: "admin,test.u", write: true},
		{name: "explain of a delete does not write", body: `{"explain": {"delete": "t", "deletes": [{"q": {}, "limit": 0}]}, "verbosity": "executionStats", "$db": "test"}`,
			actions: "EXPLAIN", targets: "test.t"},
		{name: "mapReduce to a collection", body: `{"mapReduce": "t", "map": {"$code": "function(){}"}, "reduce": {"$code": "function(){}"}, "out": {"merge": "r", "db": "o"}, "$db": "test"}`,
			actions: "MAP_REDUCE,SERVER_JS", targets: "test.t,o.r", write: true},
		{name: "mapReduce inline reads", body: `{"mapreduce": "t", "map": "function(){}", "reduce": "function(){}", "out": {"inline": 1}, "$db": "test"}`,
			actions: "MAP_REDUCE,SERVER_JS", targets: "test.t"},
		{name: "bulkWrite", body: `{"bulkWrite": 1, "$db": "admin"}`, seqs: []wire.Sequence{
			sequence(t, "ops", `{"insert": 0, "document": {"a": 1}}`, `{"delete": 1, "filter": {"a": 1}, "multi": true}`),
			sequence(t, "nsInfo", `{"ns": "test.t"}`, `{"ns": "test.u"}`)},
			actions: "BULK_WRITE,INSERT,DELETE", targets: "test.t,test.u", write: true},
		{name: "drop", body: `{"drop": "t", "$db": "test"}`, actions: "DROP", targets: "test.t", write: true},
		{name: "dropDatabase", body: `{"dropDatabase": 1, "$db": "test"}`, actions: "DROP_DATABASE", targets: "test", write: true},
		{name: "dropIndexes", body: `{"dropIndexes": "t", "index": "*", "$db": "test"}`, actions: "DROP_INDEXES", targets: "test.t", write: true},
		{name: "deleteIndexes alias", body: `{"deleteIndexes": "t", "index": "*", "$db": "test"}`, actions: "DROP_INDEXES", targets: "test.t", write: true},
		{name: "createIndexes", body: `{"createIndexes": "t", "indexes": [{"key": {"a": 1}, "name": "a_1"}], "$db": "test"}`,
			actions: "CREATE_INDEXES", targets: "test.t", write: true},
		{name: "renameCollection", body: `{"renameCollection": "test.a", "to": "prod.b", "$db": "admin"}`,
			actions: "RENAME_COLLECTION", targets: "test.a,prod.b", write: true},
		{name: "create view", body: `{"create": "v", "viewOn": "t", "pipeline": [{"$lookup": {"from": "u", "as": "x"}}], "$db": "test"}`,
			actions: "CREATE", targets: "test.v,test.t,test.u", write: true},
		{name: "collMod", body: `{"collMod": "t", "validator": {}, "$db": "test"}`, actions: "COLL_MOD", targets: "test.t", write: true},
		{name: "createUser", body: `{"createUser": "bob", "pwd": "x", "roles": [], "$db": "admin"}`, actions: "CREATE_USER", targets: "admin", write: true},
		{name: "grantRolesToUser", body: `{"grantRolesToUser": "bob", "roles": ["root"], "$db": "admin"}`, actions: "GRANT_ROLES_TO_USER", targets: "admin", write: true},
		{name: "usersInfo", body: `{"usersInfo": 1, "$db": "admin"}`, actions: "USERS_INFO", targets: "admin"},
		{name: "applyOps runs what its entries say", body: `{"applyOps": [{"op": "i", "ns": "app.t", "o": {"_id": 1}}, {"op": "d", "ns": "app.u", "o": {"_id": 1}}, {"op": "c", "ns": "app.$cmd", "o": {"drop": "v"}}, {"op": "c", "ns": "app.$cmd", "o": {"applyOps": [{"op": "c", "ns": "x.$cmd", "o": {"dropDatabase": 1}}]}}], "$db": "admin"}`,
			actions: "APPLY_OPS,INSERT,DELETE,DROP,DROP_DATABASE", targets: "app.t,app.u,app.v,x", write: true},
		{name: "killOp", body: `{"killOp": 1, "op": 12, "$db": "admin"}`, actions: "KILL_OP", write: true},
		{name: "count", body: `{"count": "t", "query": {}, "$db": "test"}`, actions: "COUNT", targets: "test.t"},
		{name: "distinct", body: `{"distinct": "t", "key": "a", "$db": "test"}`, actions: "DISTINCT", targets: "test.t"},
		{name: "listCollections", body: `{"listCollections": 1, "$db": "test"}`, actions: "LIST_COLLECTIONS", targets: "test"},
		{name: "listIndexes", body: `{"listIndexes": "t", "$db": "test"}`, actions: "LIST_INDEXES", targets: "test.t"},
		{name: "listDatabases", body: `{"listDatabases": 1, "$db": "admin"}`, actions: "LIST_DATABASES"},
		{name: "hello", body: `{"hello": 1, "$db": "admin"}`, actions: "HELLO"},
		{name: "saslStart", body: `{"saslStart": 1, "mechanism": "SCRAM-SHA-256", "payload": {"$binary": {"base64": "biwsbj1ib2Iscj0x", "subType": "00"}}, "$db": "admin"}`, actions: "AUTH"},
		{name: "endSessions", body: `{"endSessions": [{"id": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAA==", "subType": "04"}}}], "$db": "admin"}`, actions: "END_SESSIONS"},
		{name: "commitTransaction", body: `{"commitTransaction": 1, "txnNumber": {"$numberLong": "1"}, "autocommit": false, "$db": "admin"}`, actions: "COMMIT_TRANSACTION"},
		{name: "abortTransaction", body: `{"abortTransaction": 1, "$db": "admin"}`, actions: "ABORT_TRANSACTION"},
		{name: "ping", body: `{"ping": 1, "$db": "admin"}`, actions: "PING"},
		{name: "eval", body: `{"$eval": "db.t.drop()", "$db": "test"}`, actions: "SERVER_JS", targets: "test", write: true},
		{name: "unknown command", body: `{"frobnicate": "t", "$db": "test"}`, actions: "UNKNOWN", targets: "test.t", write: true},
		{name: "unknown command on a database", body: `{"frobnicate": 1, "$db": "test"}`, actions: "UNKNOWN", targets: "test", write: true},
		{name: "getMore", body: `{"getMore": {"$numberLong": "12345"}, "collection": "t", "$db": "test"}`, actions: "GET_MORE", targets: "test.t"},
		{name: "killCursors", body: `{"killCursors": "t", "cursors": [{"$numberLong": "1"}, {"$numberLong": "2"}], "$db": "test"}`, actions: "KILL_CURSORS", targets: "test.t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := analyseJSON(t, tt.body, tt.seqs...)
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
			for _, a := range c.Analysis.Actions {
				if !IsAction(a) {
					t.Errorf("action %s is not in Actions()", a)
				}
			}
		})
	}
}

func TestCommandFields(t *testing.T) {
	t.Run("name and $db as sent", func(t *testing.T) {
		c := analyseJSON(t, `{"Find": "T", "$db": "Test"}`)
		if c.Name != "Find" || c.Database != "Test" || join(c.Analysis.Targets) != "Test.T" {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("continuations", func(t *testing.T) {
		g := analyseJSON(t, `{"getMore": {"$numberLong": "77"}, "collection": "t", "$db": "test"}`)
		k := analyseJSON(t, `{"killCursors": "t", "cursors": [{"$numberLong": "1"}, 2], "$db": "test"}`)
		f := analyseJSON(t, `{"find": "t", "$db": "test"}`)
		if !g.Continuation || join64(g.CursorIDs) != "77" || !k.Continuation || join64(k.CursorIDs) != "1,2" || f.Continuation {
			t.Fatalf("getMore %+v, killCursors %+v, find %v", g.CursorIDs, k.CursorIDs, f.Continuation)
		}
	})
	t.Run("transaction", func(t *testing.T) {
		first := analyseJSON(t, `{"insert": "t", "lsid": {"id": 1}, "txnNumber": {"$numberLong": "4"}, "startTransaction": true, "autocommit": false, "$db": "test"}`)
		next := analyseJSON(t, `{"find": "t", "lsid": {"id": 1}, "txnNumber": {"$numberLong": "4"}, "autocommit": false, "$db": "test"}`)
		retryable := analyseJSON(t, `{"insert": "t", "lsid": {"id": 1}, "txnNumber": {"$numberLong": "5"}, "$db": "test"}`)
		if !first.InTransaction || !first.StartTransaction || first.TxnNumber != 4 || !first.HasTxnNumber || first.LSID == nil {
			t.Errorf("first %+v", first)
		}
		if !next.InTransaction || next.StartTransaction {
			t.Errorf("next %+v", next)
		}
		if retryable.InTransaction || !retryable.HasTxnNumber || retryable.TxnNumber != 5 {
			t.Errorf("a retryable write is not a transaction: %+v", retryable)
		}
	})
	t.Run("maxTimeMS in any number type", func(t *testing.T) {
		for _, v := range []string{`500`, `{"$numberLong": "500"}`, `500.0`} {
			if c := analyseJSON(t, `{"find": "t", "maxTimeMS": `+v+`, "$db": "test"}`); c.MaxTimeMS != 500 {
				t.Errorf("maxTimeMS %s read as %d", v, c.MaxTimeMS)
			}
		}
		if c := analyseJSON(t, `{"find": "t", "$db": "test"}`); c.MaxTimeMS != 0 {
			t.Errorf("no maxTimeMS read as %d", c.MaxTimeMS)
		}
	})
	t.Run("ordered", func(t *testing.T) {
		if !analyseJSON(t, `{"insert": "t", "$db": "test"}`).Ordered || analyseJSON(t, `{"insert": "t", "ordered": false, "$db": "test"}`).Ordered {
			t.Fatal("ordered defaults to true and reads false")
		}
	})
	t.Run("hello", func(t *testing.T) {
		c := analyseJSON(t, `{"hello": 1, "client": {"application": {"name": "agent hoop-approval=return"}, "driver": {"name": "x"}}, "compression": ["zstd", "zlib"], "$db": "admin"}`)
		if !c.Hello || c.AppName != "agent hoop-approval=return" || join(c.Compression) != "zstd,zlib" || c.Auth != nil {
			t.Fatalf("%+v", c)
		}
	})
}

func join64(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = itoa(int(id))
	}
	return join(s)
}

func TestAuth(t *testing.T) {
	b64 := b64String
	tests := []struct {
		name, body           string
		cmd, mech, user, db  string
		speculative, isHello bool
	}{
		{name: "SCRAM-SHA-256 saslStart", body: `{"saslStart": 1, "mechanism": "SCRAM-SHA-256", "payload": {"$binary": {"base64": "` + b64("n,,n=alice,r=abc") + `", "subType": "00"}}, "$db": "admin"}`,
			cmd: "saslStart", mech: "SCRAM-SHA-256", user: "alice", db: "admin"},
		{name: "SCRAM escapes and an authzid", body: `{"saslStart": 1, "mechanism": "SCRAM-SHA-1", "payload": {"$binary": {"base64": "` + b64("n,a=x,n=a=2Cb=3Dc,r=abc") + `", "subType": "00"}}, "$db": "prod"}`,
			cmd: "saslStart", mech: "SCRAM-SHA-1", user: "a,b=c", db: "prod"},
		{name: "SCRAM with channel binding flag and m=", body: `{"saslStart": 1, "mechanism": "SCRAM-SHA-256", "payload": {"$binary": {"base64": "` + b64("y,,m=ext,n=bob,r=abc") + `", "subType": "00"}}, "$db": "admin"}`,
			cmd: "saslStart", mech: "SCRAM-SHA-256", user: "bob", db: "admin"},
		{name: "malformed client-first", body: `{"saslStart": 1, "mechanism": "SCRAM-SHA-256", "payload": {"$binary": {"base64": "` + b64("garbage") + `", "subType": "00"}}, "$db": "admin"}`,
			cmd: "saslStart", mech: "SCRAM-SHA-256", db: "admin"},
		{name: "PLAIN", body: `{"saslStart": 1, "mechanism": "PLAIN", "payload": {"$binary": {"base64": "` + b64("\x00carol\x00secret") + `", "subType": "00"}}, "$db": "$external"}`,
			cmd: "saslStart", mech: "PLAIN", user: "carol", db: "$external"},
		{name: "saslContinue", body: `{"saslContinue": 1, "conversationId": 1, "payload": {"$binary": {"base64": "` + b64("c=biws,r=abc,p=xyz") + `", "subType": "00"}}, "$db": "admin"}`,
			cmd: "saslContinue", db: "admin"},
		{name: "X.509", body: `{"authenticate": 1, "mechanism": "MONGODB-X509", "user": "CN=agent", "$db": "$external"}`,
			cmd: "authenticate", mech: "MONGODB-X509", user: "CN=agent", db: "$external"},
		{name: "logout", body: `{"logout": 1, "$db": "admin"}`, cmd: "logout", db: "admin"},
		{name: "speculative in hello", body: `{"hello": 1, "speculativeAuthenticate": {"saslStart": 1, "mechanism": "SCRAM-SHA-256", "payload": {"$binary": {"base64": "` + b64("n,,n=dave,r=abc") + `", "subType": "00"}}, "db": "admin"}, "$db": "admin"}`,
			cmd: "saslStart", mech: "SCRAM-SHA-256", user: "dave", db: "admin", speculative: true, isHello: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := analyseJSON(t, tt.body)
			a := c.Auth
			if a == nil {
				t.Fatal("no Auth")
			}
			if a.Command != tt.cmd || a.Mechanism != tt.mech || a.User != tt.user || a.Database != tt.db || a.Speculative != tt.speculative || c.Hello != tt.isHello {
				t.Fatalf("auth %+v, hello %v", a, c.Hello)
			}
		})
	}
}

func TestFromMsgRefuses(t *testing.T) {
	tests := []struct {
		name string
		m    *wire.Msg
		want string
	}{
		{"empty body", msg(t, `{}`), "empty command document"},
		{"sequence repeats a body field", msg(t, `{"insert": "t", "documents": [], "$db": "test"}`, sequence(t, "documents", `{"a": 1}`)), "repeats a field"},
		{"$db twice", msg(t, `{"drop": "t", "$db": "test", "$db": "prod"}`), "\"$db\" appears twice"},
		{"a field twice", msg(t, `{"delete": "t", "deletes": [], "deletes": [{"q": {}, "limit": 0}], "$db": "test"}`), "\"deletes\" appears twice"},
		{"sequence twice", msg(t, `{"insert": "t", "$db": "test"}`, sequence(t, "documents", `{"a": 1}`), sequence(t, "documents", `{"a": 2}`)), "appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromMsg(tt.m)
			var ce *Error
			if c != nil || !errors.As(err, &ce) || !contains(ce.Error(), tt.want) {
				t.Fatalf("FromMsg: %+v, %v; want an *Error saying %q", c, err, tt.want)
			}
		})
	}
}

func TestFromQuery(t *testing.T) {
	q := func(ns, body string) *wire.Query {
		return &wire.Query{FullCollectionName: ns, NumberToReturn: -1, Query: doc(t, body)}
	}
	c, err := FromQuery(q("admin.$cmd", `{"isMaster": 1, "helloOk": true, "client": {"application": {"name": "legacy"}}}`))
	if err != nil || c.Name != "isMaster" || !c.Hello || c.Database != "admin" || c.AppName != "legacy" || join(c.Analysis.Actions) != "HELLO" {
		t.Fatalf("legacy isMaster: %+v, %v", c, err)
	}
	c, err = FromQuery(q("admin.$cmd", `{"$query": {"ismaster": 1}, "$readPreference": {"mode": "secondaryPreferred"}}`))
	if err != nil || c.Name != "ismaster" || !c.Hello {
		t.Fatalf("wrapped in $query: %+v, %v", c, err)
	}
	c, err = FromQuery(q("test.$cmd", `{"delete": "t", "deletes": [{"q": {}, "limit": 0}]}`))
	if err != nil || c.Database != "test" || join(c.Analysis.Targets) != "test.t" || join(c.Analysis.Actions) != "DELETE" {
		t.Fatalf("a $cmd delete: %+v, %v", c, err)
	}
	msgForm := analyseJSON(t, `{"delete": "t", "deletes": [{"q": {}, "limit": 0}], "$db": "test"}`)
	if string(c.CanonicalBytes()) != string(msgForm.CanonicalBytes()) {
		t.Fatalf("OP_QUERY and OP_MSG forms of a command differ:\n%s\n%s", c.Display(0), msgForm.Display(0))
	}
	// The namespace names the database: a $db that disagrees must not
	// move the target (servers refuse $db in OP_QUERY, error 40621).
	if c, err := FromQuery(q("prod.$cmd", `{"delete": "t", "deletes": [{"q": {}, "limit": 0}], "$db": "test"}`)); c != nil || err == nil {
		t.Fatalf("an OP_QUERY with $db: %+v, %v", c, err)
	}
	// Servers unwrap $query once: a "query" inside it is the command's
	// name, not a second wrapper hiding what runs.
	c, err = FromQuery(q("test.$cmd", `{"$query": {"query": {"find": "t"}, "delete": "t"}}`))
	if err != nil || c.Name != "query" || join(c.Analysis.Actions) != "UNKNOWN" {
		t.Fatalf("a wrapper inside $query: %+v, %v", c, err)
	}
	if c, err := FromQuery(q("test.t", `{"a": 1}`)); c != nil || err == nil {
		t.Fatalf("a non-command OP_QUERY: %+v, %v", c, err)
	}
}
