// Package masking is the core's masking rule, written once for every
// listener (docs/masking.md): which values of a statement's results an
// agent must not read in clear, and what it reads instead.
//
// A listener that carries data back supplies only its reader and writer
// (postgres DataRow, mysql rows, mssql ROW tokens, MongoDB documents, http
// JSON bodies). It asks Set.For once per statement for a Plan (nil when no
// rule applies: the listener then touches nothing), asks the Plan for each
// column or field path a Field (nil when nothing applies to it), and hands
// each value of that Field to Text or NonText. The Plan counts what was
// masked, per rule, for the statement's audit line.
//
// Everything here is pure computation: no I/O. Keys for the hash strategy
// come in as bytes from the config adapter.
package masking
