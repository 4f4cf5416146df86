// Package analyzer classifies PostgreSQL SQL for the gate with PostgreSQL's
// own parser (libpg_query through github.com/pganalyze/pg_query_go/v6): each
// statement's kinds (domain.Analysis.Actions, e.g. DELETE, DROP, DROP_TABLE,
// SELECT_INTO), the relations it names (Targets) and the functions it calls
// (Functions), plus what a session must remember to classify later
// statements (PREPARE, EXECUTE, DEALLOCATE). The action vocabulary is
// documented in docs/postgres-listener.md.
//
// It is pure: no I/O, safe for concurrent use. Cache memoises results by
// statement text; limits.go bounds what one text and all texts at once may
// cost; malloc.go keeps the C allocator from holding on to the memory of
// large texts once they are analysed.
package analyzer
