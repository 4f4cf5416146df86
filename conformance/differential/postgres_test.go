package differential

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	pg "github.com/pganalyze/pg_query_go/v6"

	pgproto "github.com/hoophq/sidecar/adapters/inbound/postgres"
	pganalyzer "github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/internal/listenertest"
	"github.com/hoophq/sidecar/ports"
)

// pgReadActions are the postgres listener's actions its rules let through;
// every other action of the analyzer's vocabulary is held.
var pgReadActions = []string{
	"SELECT", "SET_OPERATION", "SHOW", "EXPLAIN", "SET", "RESET", "BEGIN", "COMMIT", "ROLLBACK", "ROLLBACK_TO",
	"SAVEPOINT", "RELEASE", "TRANSACTION", "PREPARE", "EXECUTE", "DEALLOCATE", "DECLARE_CURSOR", "FETCH", "MOVE",
	"CLOSE_PORTAL", "DISCARD", "LISTEN", "UNLISTEN", "CONSTRAINTS_SET",
}

// pgReadNodes are the parse nodes of those read actions. A statement the
// server recorded is of a held kind when its node is not one of these, or
// when it holds a data-modifying statement (a CTE, PREPARE's body) or an
// INTO clause; EXPLAIN is held when it is EXPLAIN ANALYZE of a write.
var pgReadNodes = []string{
	"SelectStmt", "VariableShowStmt", "VariableSetStmt", "TransactionStmt", "ExplainStmt", "PrepareStmt",
	"ExecuteStmt", "DeallocateStmt", "DeclareCursorStmt", "FetchStmt", "ClosePortalStmt", "DiscardStmt",
	"ListenStmt", "UnlistenStmt", "ConstraintsSetStmt",
}

var pgWriteNodes = []string{`"InsertStmt"`, `"UpdateStmt"`, `"DeleteStmt"`, `"MergeStmt"`, `"intoClause"`}

// pgHeldStatement classifies one statement text of pg_stat_statements
// with PostgreSQL's own parser; a text it cannot parse counts as held.
func pgHeldStatement(text string) (kind string, held bool) {
	js, err := pg.ParseToJSON(text)
	if err != nil {
		return "unparsable record", true
	}
	var tree struct {
		Stmts []struct {
			Stmt map[string]json.RawMessage `json:"stmt"`
		} `json:"stmts"`
	}
	if err := json.Unmarshal([]byte(js), &tree); err != nil || len(tree.Stmts) == 0 {
		return "unparsable record", true
	}
	for node, body := range tree.Stmts[0].Stmt {
		if !slices.Contains(pgReadNodes, node) {
			return node, true
		}
		if node == "ExplainStmt" {
			// EXPLAIN ANALYZE runs what it explains, and PostgreSQL 15
			// records no nested statement for it.
			if strings.Contains(string(body), `"defname":"analyze"`) && slices.ContainsFunc(pgWriteNodes[:4], func(w string) bool { return strings.Contains(string(body), w) }) {
				return "EXPLAIN ANALYZE of a write", true
			}
			return node, false
		}
		for _, w := range pgWriteNodes {
			if strings.Contains(string(body), w) {
				return node + " with " + strings.Trim(w, `"`), true
			}
		}
		return node, false
	}
	return "empty record", false
}

// TestPostgresDifferential sends generated texts through a postgres
// listener holding every write and DDL kind, in front of a private
// PostgreSQL whose pg_stat_statements (track=all) records each statement it
// executes, nested ones too, and fails when the record shows a held kind
// (issue 32, "The check that finds the next one"). HOOP_DIFF_DURATION sets
// how long (default 60s).
func TestPostgresDifferential(t *testing.T) {
	t.Parallel()
	p := startPostgres(t)
	tg := &pgTarget{p: p, seeds: append(corpus(t, "adapters/inbound/postgres/analyzer/testdata/fuzz/FuzzFastShape"), pgSeeds...)}
	var held []string
	for _, a := range pganalyzer.Actions() {
		if !slices.Contains(pgReadActions, a) {
			held = append(held, a)
		}
	}
	s := app.ListenerSettings{Name: "differential", Protocol: "postgres", Mode: app.ModeReturn, SpendOn: ports.SpendOnSent,
		Upstream:  p.addr,
		Approvals: []domain.ApprovalRule{{Name: "every-write-and-ddl", Match: domain.Match{Actions: held}}}}
	if err := s.Approvals[0].Match.Compile(); err != nil {
		t.Fatal(err)
	}
	l := listenertest.NewCore(fakecp.New(nil), app.Limits{}).Listener(s)
	tg.addr = listenertest.Serve(t, pgproto.New(nil), l)
	ctx := context.Background()
	for w := range workers {
		if _, err := p.admin.Exec(ctx, "CREATE ROLE "+workerName(w)+" LOGIN"); err != nil {
			t.Fatal(err)
		}
		tg.reset(t, w)
	}
	var v string
	p.admin.QueryRow(ctx, "SHOW server_version").Scan(&v)
	runDifferential(t, "postgres (PostgreSQL "+v+")", tg)
}

// pgSeeds are texts of earlier bypass reports beside the corpus files.
var pgSeeds = []string{
	"SELECT 1; DROP TABLE victim", "SELECT 1 /* /* */ ; DELETE FROM t -- */", "SELECT $$;DELETE FROM t;$$",
	"SELECT 'a\\'; DELETE FROM t; --'", "DO $$BEGIN DELETE FROM t; END$$", "PREPARE s AS DELETE FROM t; EXECUTE s",
	"WITH x AS (DELETE FROM t RETURNING 1) SELECT 1", "SELECT 1 -- x\rDELETE FROM t",
}

type pgTarget struct {
	p     *postgres
	addr  string // the listener
	seeds []string
	dbid  [workers]uint32
}

func (tg *pgTarget) generate(r *rand.Rand) testCase { return genPostgres(r, tg.seeds) }

// known: issue 32 lists no postgres bypass, so none is known.
func (tg *pgTarget) known(testCase) string { return "" }

// reset gives worker w a database of its own, owned by its login, with a
// fresh schema public: table t with two rows, table victim and procedure p
// (a DELETE that matches no row). The database is created once; later
// resets re-create the schema, which is much cheaper.
func (tg *pgTarget) reset(t *testing.T, w int) {
	ctx := context.Background()
	db := workerName(w)
	if tg.dbid[w] == 0 {
		if _, err := tg.p.admin.Exec(ctx, "CREATE DATABASE "+db+" OWNER "+db); err != nil {
			t.Fatalf("reset: %v", err)
		}
		if err := tg.p.admin.QueryRow(ctx, "SELECT oid FROM pg_database WHERE datname=$1", db).Scan(&tg.dbid[w]); err != nil {
			t.Fatal(err)
		}
	}
	c, err := pgconn.Connect(ctx, "postgres://postgres@"+tg.p.addr+"/"+db+"?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public AUTHORIZATION "+db+"; SET ROLE "+db+";"+
		" CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1,'a'),(2,'b'); CREATE TABLE victim (id int);"+
		" CREATE PROCEDURE p() LANGUAGE sql AS $$DELETE FROM t WHERE id=0$$").ReadAll(); err != nil {
		t.Fatalf("reset %s: %v", db, err)
	}
}

func (tg *pgTarget) through(t *testing.T, w int, c testCase) outcome {
	o, err := tg.send(t, w, tg.addr, c)
	var pe *pgconn.PgError
	if err != nil && len(o.Records) == 0 && errors.As(err, &pe) &&
		(strings.Contains(pe.Message, "hoop sidecar") || strings.Contains(pe.Message, "statement held for human approval")) {
		o.Refused = true
	}
	return o
}

func (tg *pgTarget) direct(t *testing.T, w int, c testCase) outcome {
	o, _ := tg.send(t, w, tg.p.addr, c)
	return o
}

// send runs c in a new session of worker w at addr (the listener or the
// server) after clearing the database's pg_stat_statements entries, ends
// the session, waits until the server has no backend on the database, and
// reads the entries the session left.
func (tg *pgTarget) send(t *testing.T, w int, addr string, c testCase) (outcome, error) {
	db := workerName(w)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := tg.p.admin.Exec(ctx, "SELECT pg_stat_statements_reset(0, $1, 0)", tg.dbid[w]); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgconn.ParseConfig("postgres://" + db + "@" + addr + "/" + db + "?sslmode=disable&connect_timeout=10")
	if err != nil {
		t.Fatal(err)
	}
	enc, scs, _ := strings.Cut(c.Session, ",")
	cfg.RuntimeParams["client_encoding"] = enc
	if k, v, ok := strings.Cut(scs, "="); ok {
		cfg.RuntimeParams[k] = v
	}
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Errorf("connect %s as %s: %v; %s", addr, db, err, c)
		return outcome{Err: err.Error()}, err
	}
	q := fill(c.SQL, db)
	if c.Via == "extended" {
		err = conn.ExecParams(ctx, q, nil, nil, nil, nil).Read().Err
	} else {
		_, err = conn.Exec(ctx, q).ReadAll()
	}
	if ctx.Err() != nil {
		t.Logf("HANG: no answer in 30 s: %s", c)
	}
	conn.Close(context.Background())
	o := outcome{}
	if err != nil {
		o.Err = err.Error()
	}
	tg.waitGone(t, db)
	rows, qerr := tg.p.admin.Query(context.Background(), "SELECT coalesce(query, '') FROM pg_stat_statements WHERE dbid=$1", tg.dbid[w])
	if qerr != nil {
		t.Fatal(qerr)
	}
	texts, qerr := pgx.CollectRows(rows, pgx.RowTo[string])
	if qerr != nil {
		t.Fatal(qerr)
	}
	for _, s := range texts {
		kind, held := pgHeldStatement(s)
		if s == "" { // the server lost the text (its query file): the kind is unknown
			kind, held = "a statement whose text the server did not keep", true
		}
		o.Records = append(o.Records, record{Kind: kind, Text: s, Held: held})
	}
	return o, err
}

// waitGone polls until no backend serves database db, so its statements
// are all recorded.
func (tg *pgTarget) waitGone(t *testing.T, db string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := tg.p.admin.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname=$1", db).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a backend still serves %s 30 s after its client hung up", db)
		}
		time.Sleep(2 * time.Millisecond) // polling the server for an event: the bound above ends a hang
	}
}
