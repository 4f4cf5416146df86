// Package analyzer classifies PostgreSQL SQL for the gate with PostgreSQL's
// own parser (libpg_query through github.com/pganalyze/pg_query_go/v6): each
// statement's kinds (domain.Analysis.Actions, e.g. DELETE, DROP, DROP_TABLE,
// SELECT_INTO), the relations it names (Targets) and the functions it calls
// (Functions), its effects (domain.Analysis.Effects, the words rules share
// with every protocol: effects.go per statement node, functions.go per
// function called, where.go for UNBOUNDED with scope.go saying what a
// condition's columns stand for), plus what a session must remember to
// classify later statements (PREPARE, EXECUTE, DEALLOCATE). The action
// vocabulary is documented in docs/postgres-listener.md, the effects
// in docs/rules.md's effects table, which effects_test.go checks.
//
// It is pure: no I/O, safe for concurrent use. Cache memoises results by
// statement text; limits.go bounds what one text and all texts at once may
// cost; malloc.go keeps the C allocator from holding on to the memory of
// large texts once they are analysed.
package analyzer
