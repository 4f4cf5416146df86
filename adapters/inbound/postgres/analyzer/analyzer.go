package analyzer

import (
	"context"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Statement is the analysis of one SQL statement.
type Statement struct {
	// Text is the statement's own text within the analysed SQL.
	//
	// Analysis is what rules match: Actions (statement kinds, upper case),
	// Targets (relation and object names) and Functions (called functions).
	analyzerkit.Statement
	// Prepare is set on PREPARE name AS query: the name and the analysis of
	// the query, which runs only when EXECUTE name is sent.
	Prepare *Prepared
	// Execute is the name in EXECUTE name(...); the session adds the
	// prepared query's analysis.
	Execute string
	// Declare is the cursor a DECLARE name CURSOR FOR query opens (the
	// statement's analysis is its query's); Fetch is the cursor a FETCH or
	// MOVE reads. The session pairs them for the masking rules' match
	// (cursor.go): a FETCH returns the rows of a query it does not name.
	Declare, Fetch string
	// CopyQuoting is set on a COPY TO that names its own DELIMITER, QUOTE
	// or ESCAPE: the server then escapes or quotes that character inside
	// the data (alice\@example.com), which the masking cannot read.
	CopyQuoting bool
	// Deallocate names a DEALLOCATE; DeallocateAll is DEALLOCATE ALL.
	Deallocate    string
	DeallocateAll bool
	// constants is set when the analysis read the values of the text's
	// constants (folding a WHERE, where.go): it then stands for no other
	// text of its shape (cache.go).
	constants bool
}

// Prepared is a PREPARE's name and query.
type Prepared struct {
	Name     string
	Analysis domain.Analysis
	// Text is the PREPARE statement's text (set by the session that keeps it).
	Text string
}

// Result is the analysis of one SQL text (one Query message or one Parse).
type Result struct {
	// Statements has one entry per statement, in order. Empty for an empty
	// text (only comments or semicolons).
	Statements []Statement
	// Err is the parser's error; Statements then holds one entry whose only
	// action is Unknown.
	Err error
}

// Analyze parses sql with PostgreSQL's parser and classifies each statement.
// It never fails: a text the parser refuses yields one Unknown statement and
// Err set; Err wraps ErrUncheckable when the text is too large or too deep
// to analyse (checkLimits), which the caller must refuse.
func Analyze(sql string) Result {
	return AnalyzeContext(context.Background(), sql)
}

// AnalyzeContext is Analyze for a client whose leaving ends ctx: a large
// text waiting for its turn to be parsed (budget) then stops waiting, and
// its result is an ErrUncheckable error. A panic while analysing yields one
// Unknown statement and Err saying so; the process lives on.
func AnalyzeContext(ctx context.Context, sql string) Result {
	return analyzerkit.Analyze(ctx, budget, sql, testHook, func() Result { return analyze(sql) },
		func(err error) Result { return unknown(sql, err) })
}

// testHook, when set (by tests only), runs before each analysis.
var testHook func(sql string)

// unknown is the result of a text that cannot be analysed: one Unknown
// statement with the whole text, and err.
func unknown(sql string, err error) Result {
	st := analyzerkit.Whole(sql, []string{domain.ActionUnknown})
	st.Analysis.Effects = []string{domain.EffectUnknown}
	return Result{Statements: []Statement{{Statement: st}}, Err: err}
}

func analyze(sql string) Result {
	tree, err := parse(sql)
	if err != nil {
		return unknown(sql, err)
	}
	out := Result{Statements: make([]Statement, 0, len(tree.Stmts))}
	for _, raw := range tree.Stmts {
		if raw.Stmt == nil {
			continue
		}
		w := newWalker()
		w.node(raw.Stmt.ProtoReflect())
		st := w.statement()
		st.Text = stmtText(sql, int(raw.StmtLocation), int(raw.StmtLen))
		out.Statements = append(out.Statements, st)
	}
	return out
}

// parse runs PostgreSQL's parser on a text within the limits (checkLimits).
// A syntax error is returned as the parser gives it; anything else that
// stops the analysis wraps ErrUncheckable.
func parse(sql string) (*pg.ParseResult, error) {
	if err := checkLimits(sql); err != nil {
		return nil, err
	}
	buf, err := parser.ParseToProtobuf(sql)
	if err != nil {
		return nil, err
	}
	tree := &pg.ParseResult{}
	// Within MaxDepth a tree is at most a few protobuf levels per level.
	if err := (proto.UnmarshalOptions{RecursionLimit: 10 * MaxDepth}).Unmarshal(buf, tree); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUncheckable, err)
	}
	return tree, nil
}

// stmtText slices one statement out of sql (a length of 0 runs to the end).
func stmtText(sql string, loc, n int) string {
	if loc < 0 || loc > len(sql) {
		return sql
	}
	if n <= 0 || loc+n > len(sql) {
		return strings.TrimSpace(sql[loc:])
	}
	return strings.TrimSpace(sql[loc : loc+n])
}

// walker collects one statement's analysis.
type walker struct {
	analyzerkit.Found
	st      Statement
	effects map[string]struct{}
	// insertValues is an INSERT's VALUES list, which reads nothing.
	insertValues *pg.SelectStmt
	// scope is what the condition being folded names (where.go, scope.go).
	scope scope
}

func newWalker() *walker {
	return &walker{Found: analyzerkit.NewFound(), effects: map[string]struct{}{}}
}

// Effect adds effects (domain.Effects words).
func (w *walker) Effect(effects ...string) {
	for _, e := range effects {
		w.effects[e] = struct{}{}
	}
}

func (w *walker) statement() Statement {
	w.st.Analysis = w.Analysis()
	for _, e := range domain.Effects { // the vocabulary's order
		if _, ok := w.effects[e]; ok {
			w.st.Analysis.Effects = append(w.st.Analysis.Effects, e)
		}
	}
	return w.st
}

// relation adds a relation name: as written (schema-qualified when given),
// the bare name, and for an unqualified name public.<name> (the default
// search_path; see docs/postgres-listener.md).
func (w *walker) relation(catalog, schema, name string) {
	if name == "" {
		return
	}
	w.Targets[name] = struct{}{}
	switch {
	case schema == "":
		w.Targets["public."+name] = struct{}{}
	case catalog != "":
		w.Targets[catalog+"."+schema+"."+name] = struct{}{}
		w.Targets[schema+"."+name] = struct{}{}
	default:
		w.Targets[schema+"."+name] = struct{}{}
	}
}

// qualified adds a dotted name list (e.g. DROP TABLE s.t's object) as a relation.
func (w *walker) qualified(parts []string) {
	switch len(parts) {
	case 0:
	case 1:
		w.relation("", "", parts[0])
	case 2:
		w.relation("", parts[0], parts[1])
	default:
		n := len(parts)
		w.relation(parts[n-3], parts[n-2], parts[n-1])
	}
}

func (w *walker) function(parts []string) {
	if len(parts) == 0 {
		return
	}
	w.Functions[strings.Join(parts, ".")] = struct{}{}
	w.Functions[parts[len(parts)-1]] = struct{}{}
}

// node classifies m and walks its children (statements nested in CTEs,
// subqueries, CREATE TABLE AS, COPY (query), EXPLAIN ANALYZE, …).
func (w *walker) node(m protoreflect.Message) {
	if !m.IsValid() {
		return
	}
	if !w.classify(m.Interface()) {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				w.node(l.Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			w.node(v.Message())
		}
		return true
	})
}
