package domain

import "strings"

// An effect is a protocol-blind word for what a statement does to the
// system it reaches, reported by every analyzer beside its own actions
// (Analysis.Effects), so that one rule (`match: {effects: [DELETE]}`)
// means the same on every listener. docs/rules.md has the table of which
// statements carry which effect on each protocol.
//
// A statement may carry several: `LOAD DATA … REPLACE` is INSERT and
// DELETE; `DELETE FROM t` is DELETE and UNBOUNDED. The words are upper
// case; rules compare them case-insensitively, as actions.
const (
	// EffectRead: reads data (SELECT, find, GET).
	EffectRead = "READ"
	// EffectInsert: adds rows or documents (INSERT, COPY … FROM STDIN,
	// LOAD DATA, insert, POST).
	EffectInsert = "INSERT"
	// EffectUpdate: changes rows or documents in place (UPDATE, MERGE,
	// update, findAndModify with update, PUT, PATCH).
	EffectUpdate = "UPDATE"
	// EffectDelete: removes rows or documents (DELETE, REPLACE's delete
	// half, delete, findAndModify with remove, HTTP DELETE).
	EffectDelete = "DELETE"
	// EffectTruncate: empties a table or collection whole (TRUNCATE).
	EffectTruncate = "TRUNCATE"
	// EffectDrop: removes an object and its data (DROP TABLE, DROP
	// DATABASE, dropDatabase, drop).
	EffectDrop = "DROP"
	// EffectSchemaChange: creates, alters or renames an object (CREATE,
	// ALTER, RENAME TABLE, sp_rename, createIndexes, renameCollection).
	EffectSchemaChange = "SCHEMA_CHANGE"
	// EffectPrivilege: changes who may do what (GRANT, REVOKE, CREATE USER,
	// ALTER ROLE, createUser, grantRolesToUser).
	EffectPrivilege = "PRIVILEGE"
	// EffectFileAccess: reads or writes files on the server's host (LOAD
	// DATA INFILE, SELECT … INTO OUTFILE, COPY … TO/FROM a file or PROGRAM,
	// pg_read_file, OPENROWSET, BULK INSERT).
	EffectFileAccess = "FILE_ACCESS"
	// EffectOSCommand: runs a command of the server's operating system
	// (xp_cmdshell, COPY … PROGRAM, sys_exec).
	EffectOSCommand = "OS_COMMAND"
	// EffectRunsCode: runs a body the analyzer does not read (DO, CALL,
	// EXEC of a procedure, PREPARE … FROM @var, $where, mapReduce,
	// server-side JavaScript): it may do anything.
	EffectRunsCode = "RUNS_CODE"
	// EffectAdmin: administers the server (KILL, SHUTDOWN, SET GLOBAL,
	// ALTER SYSTEM, DBCC, killOp).
	EffectAdmin = "ADMIN"
	// EffectUnbounded: an UPDATE or DELETE with no WHERE or a WHERE that
	// is constant-true, deleteMany({}), updateMany({}, …), TRUNCATE: a write
	// that reaches every row.
	EffectUnbounded = "UNBOUNDED"
	// EffectUnknown: the analyzer could not read what the statement does
	// (ActionUnknown's effect).
	EffectUnknown = "UNKNOWN"
)

// Effects is the whole vocabulary, in the order docs/rules.md lists it.
var Effects = []string{
	EffectRead, EffectInsert, EffectUpdate, EffectDelete, EffectTruncate, EffectDrop,
	EffectSchemaChange, EffectPrivilege, EffectFileAccess, EffectOSCommand, EffectRunsCode,
	EffectAdmin, EffectUnbounded, EffectUnknown,
}

// IsEffect reports whether name is a word of the vocabulary (any case).
func IsEffect(name string) bool {
	for _, e := range Effects {
		if strings.EqualFold(e, name) {
			return true
		}
	}
	return false
}

// AddEffects returns effects with each of more appended that it does not
// hold yet (as given), keeping the first-seen order: the way an analyzer
// collects a statement's effects (Merge uses it for every list).
func AddEffects(effects []string, more ...string) []string {
next:
	for _, m := range more {
		for _, e := range effects {
			if e == m {
				continue next
			}
		}
		effects = append(effects, m)
	}
	return effects
}

// UnreadRun is the analysis of code that runs without any analyzer having
// read it: an EXECUTE of a name no PREPARE the listener saw defined, a
// PREPARE from a variable, a protocol-level execute of a statement the
// listener never saw, an RPC it cannot follow. UNKNOWN, and RUNS_CODE
// because whatever it is runs. Each call returns new slices.
func UnreadRun() Analysis {
	return Analysis{Actions: []string{ActionUnknown}, Effects: []string{EffectRunsCode, EffectUnknown}}
}

// Merge returns a with what b adds: each of its lists (Actions, Targets,
// Functions, Effects) followed by b's entries it does not hold yet. It
// shares no slice with a or b. Parts are not merged.
func Merge(a, b Analysis) Analysis {
	join := func(x, y []string) []string { return AddEffects(append([]string(nil), x...), y...) }
	return Analysis{Actions: join(a.Actions, b.Actions), Targets: join(a.Targets, b.Targets),
		Functions: join(a.Functions, b.Functions), Effects: join(a.Effects, b.Effects)}
}
