// Package analyzer classifies MySQL and MariaDB SQL for the gate with a real
// MySQL grammar (github.com/pingcap/tidb/pkg/parser; docs/mysql-listener.md,
// "Analyzer"): each statement's kinds (domain.Analysis.Actions, e.g.
// DELETE, DROP, DROP_TABLE, LOAD_DATA) and effects (Effects: DELETE,
// UNBOUNDED, RUNS_CODE…), the tables it names as db.table (Targets) and the
// functions it calls (Functions), plus what the listener's session must act on (USE,
// KILL, LOAD DATA LOCAL INFILE). The action vocabulary is documented in
// docs/mysql-listener.md, "Analyzer".
//
// Files:
//   - analyzer.go: Analyze, Result, Statement; parsing and statement texts.
//   - lexical.go: a MySQL tokenizer (strings, quoted identifiers, comments,
//     executable comments) that expands /*! … */ and /*M! … */ into the SQL
//     the server runs, reads bytes outside literals in the client character
//     set, and tells whether sql_mode could split a text differently.
//   - charset.go, charsets_table.go: what each client character set reads
//     as whitespace or control outside a literal (the table is measured
//     against MariaDB by a test in the mysql package), collation ids.
//   - reading.go: the sql_mode names and how each is treated, what a SET
//     does to how later statements read, and reading a multi-statement
//     text statement by statement across such a change.
//   - modes.go: the other sql_mode readings of a text with a backslash in a
//     string (NO_BACKSLASH_ESCAPES, ANSI_QUOTES).
//   - classify.go: what each parse-tree node adds to a statement's analysis.
//   - guess.go: the kinds a refused text's first keywords name (XA, HANDLER…).
//   - vocabulary.go: Actions and IsAction, what `sidecar validate` accepts.
//   - effects.go: each statement's effects (Analysis.Effects, the words
//     rules share across protocols: docs/rules.md) from its actions and
//     functions; bounds.go: UNBOUNDED, an UPDATE or DELETE that may reach
//     every row; builtins.go: the server's own functions (any other call
//     runs a body the analyzer does not read: RUNS_CODE).
//   - skipped.go: the other readings of a text whose versioned executable
//     comments some server skips, merged into each statement's analysis;
//     lexeffects.go: effects only the tokens show (ALTER IGNORE, a call
//     of a built-in's name MariaDB reads as a stored function's).
//   - limits.go: bounds on what one text may cost (ErrUncheckable).
//   - bulk.go: the linear reader of multi-row INSERTs of literals.
//   - parsecost.go: which large texts go to bulk.go, and their estimate of
//     parse-tree memory (TokenCost) within analyzerkit.ParseTrees.
//   - cache.go, shape.go: Cache, memoising results by text and by shape.
//
// It is pure: no I/O, safe for concurrent use. A text the parser refuses is
// one UNKNOWN statement with Result.Err set; callers hold it (fail closed).
package analyzer
