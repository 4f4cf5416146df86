// Package analyzer classifies T-SQL for the SQL Server listener with a real
// T-SQL grammar (github.com/bytebase/parser, package tsql, ANTLR;
// docs/mssql-listener.md, "Analyzer"), and plain DML batches first with a faster parser
// (github.com/sqlc-dev/teesql) that hands every text it is not sure of to
// the grammar (fast.go):
// each statement's kinds (domain.Analysis.Actions, e.g. DELETE, DROP,
// DROP_TABLE, EXEC), the objects it names as db.schema.object (Targets) and
// the functions it calls (Functions), the protocol-blind effects it has
// (Effects: READ, DELETE, UNBOUNDED, RUNS_CODE…; docs/rules.md), plus what
// the listener's session must act on (USE, transaction statements, SET
// XACT_ABORT). The action vocabulary is documented in
// docs/mssql-listener.md, "Analyzer".
//
// Files:
//   - analyzer.go: Analyze, Result, Statement; the statements of a batch.
//   - fast.go: the fast path (teesql), which takes a text only when its
//     safeguards hold (listed there); fastlex.go: its lexical checks
//     (teesql's tokens are lex's); fastshape.go: its clause checks (FROM,
//     OFFSET, OPTION); fastwalk.go: its tree walk; fastnodes.go: the node
//     types it reads and the grammar's built-in functions.
//   - parse.go: the two-stage ANTLR parse (SLL, then LL) that stops at the
//     first syntax error.
//   - classify.go: what each parse-tree node adds to a statement's analysis.
//   - effects.go: the effects each action carries, the table of system
//     procedures whose effects are known (procEffects; any other
//     procedure is RUNS_CODE), and the effects of a refused text.
//   - bounds.go: UNBOUNDED, from the shape of an UPDATE's, DELETE's or
//     MERGE's condition, on the grammar's tree and on teesql's.
//   - dynamic.go: EXEC ('…'), sp_executesql N'…' and procedure calls.
//   - proc.go: AnalyzeProc, an RPC call of a procedure by name.
//   - lexical.go: a T-SQL tokenizer (strings, [names], nested comments) for
//     shapes, limits, guesses, token counts and the bulk reader (lexEach,
//     which keeps no tokens).
//   - guess.go: the kinds a refused text's keywords name (DENY, BULK_INSERT…).
//   - vocabulary.go: Actions and IsAction, what `sidecar validate` accepts.
//   - limits.go: bounds on what one text may cost (ErrUncheckable).
//   - parsecost.go: a large text's share of analyzerkit.ParseTrees,
//     TokenCost per token, or uncheckable when its estimate is over it;
//     bulk.go: the bulk reader, which reads a multi-row INSERT of literals
//     of any size without a parse tree.
//   - cache.go, shape.go: Cache, memoising results by text and by shape.
//   - atomic.go: Atomic, whether a text is one statement SQL Server runs
//     whole or not at all (spend_approval_on: accepted).
//   - warm.go, warmgen.go: Warm, which fills the grammar's prediction cache
//     at start from typical statements and generated combinations of their
//     pieces.
//
// It is pure: no I/O, safe for concurrent use. A text the parser refuses is
// one UNKNOWN statement with Result.Err set; callers hold it (fail closed).
package analyzer
