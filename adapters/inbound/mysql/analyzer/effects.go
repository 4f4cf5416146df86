package analyzer

import (
	"strings"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Effects: each statement's protocol-blind effects (domain/effects.go,
// docs/rules.md "Which statements carry which effect"), reported in
// Analysis.Effects beside its actions. They are read from three places:
//
//   - its actions, through actionEffects (every action of the vocabulary
//     has an entry; a test checks it): SELECT is READ, REPLACE is INSERT
//     and DELETE, LOAD_DATA is INSERT and FILE_ACCESS, CALL and EXECUTE are
//     RUNS_CODE, CREATE_TRIGGER and CREATE_EVENT are SCHEMA_CHANGE and
//     RUNS_CODE (the body is not read, and runs later without a statement
//     the gate sees), KILL is ADMIN, TRUNCATE is TRUNCATE and UNBOUNDED…
//   - its functions, through functionEffects (load_file is FILE_ACCESS,
//     sys_exec and sys_eval are OS_COMMAND), and any function that is not
//     the server's own (builtins.go) or is called qualified (db.f()): a
//     stored or loadable function, whose body is not read: RUNS_CODE;
//   - what the walker finds in the tree (walker.effect): UNBOUNDED for a
//     DELETE or UPDATE that may reach every row (bounds.go), RUNS_CODE for
//     PREPARE … FROM @var, DROP or TRUNCATE for ALTER TABLE … DROP COLUMN /
//     PARTITION, TRUNCATE PARTITION, and the effects of a PREPAREd text.
//
// An action missing from actionEffects (none should be) reads as UNKNOWN:
// fail closed.

// actionEffects maps each action to its effects (nil: none, such as BEGIN
// or USE). The bare CREATE, ALTER and DROP are read in effectsOf.
var actionEffects = map[string][]string{
	domain.ActionUnknown: {domain.EffectUnknown},

	"SELECT": {domain.EffectRead}, "SELECT_FOR_UPDATE": {domain.EffectRead}, "SELECT_FOR_SHARE": {domain.EffectRead},
	"SELECT_INTO": {domain.EffectRead}, "SELECT_INTO_OUTFILE": {domain.EffectRead, domain.EffectFileAccess},
	"SELECT_INTO_DUMPFILE": {domain.EffectRead, domain.EffectFileAccess},
	"SHOW":                 {domain.EffectRead}, "EXPLAIN": {domain.EffectRead}, "HELP": {domain.EffectRead},
	"HANDLER": {domain.EffectRead},

	"INSERT": {domain.EffectInsert}, "UPDATE": {domain.EffectUpdate}, "DELETE": {domain.EffectDelete},
	"REPLACE":   {domain.EffectInsert, domain.EffectDelete},
	"LOAD_DATA": {domain.EffectInsert, domain.EffectFileAccess}, "LOAD": {domain.EffectInsert, domain.EffectFileAccess},
	// LOCAL: the client's file, read by the client and sent on: still a
	// file the statement reads, so a rule on FILE_ACCESS holds both forms.
	"LOAD_DATA_LOCAL": {domain.EffectFileAccess},
	"TRUNCATE":        {domain.EffectTruncate, domain.EffectUnbounded},

	"CALL": {domain.EffectRunsCode}, "EXECUTE": {domain.EffectRunsCode},
	"BINLOG": {domain.EffectRunsCode, domain.EffectAdmin}, // replays encoded row events: any write

	"DROP_TABLE": {domain.EffectDrop}, "DROP_VIEW": {domain.EffectDrop}, "DROP_DATABASE": {domain.EffectDrop},
	"DROP_SEQUENCE": {domain.EffectDrop}, "DROP_PROCEDURE": {domain.EffectDrop}, "DROP_FUNCTION": {domain.EffectDrop},
	"DROP_TRIGGER": {domain.EffectDrop}, "DROP_EVENT": {domain.EffectDrop}, "DROP_PACKAGE": {domain.EffectDrop},
	"DROP_TABLESPACE": {domain.EffectDrop}, "DROP_SERVER": {domain.EffectDrop},
	"DROP_INDEX": {domain.EffectSchemaChange},
	"DROP_USER":  {domain.EffectDrop, domain.EffectPrivilege}, "DROP_ROLE": {domain.EffectDrop, domain.EffectPrivilege},

	"CREATE_TABLE": {domain.EffectSchemaChange}, "CREATE_VIEW": {domain.EffectSchemaChange},
	"CREATE_DATABASE": {domain.EffectSchemaChange}, "CREATE_INDEX": {domain.EffectSchemaChange},
	"CREATE_SEQUENCE": {domain.EffectSchemaChange}, "CREATE_TABLESPACE": {domain.EffectSchemaChange},
	"CREATE_SERVER": {domain.EffectSchemaChange},
	// A stored program's body is not read (routine.go): it runs on CALL,
	// on a call in an expression, on the trigger's DML or at the event's
	// time, the last two with no statement of their own to hold.
	"CREATE_PROCEDURE": {domain.EffectSchemaChange, domain.EffectRunsCode},
	"CREATE_FUNCTION":  {domain.EffectSchemaChange, domain.EffectRunsCode},
	"CREATE_TRIGGER":   {domain.EffectSchemaChange, domain.EffectRunsCode},
	"CREATE_EVENT":     {domain.EffectSchemaChange, domain.EffectRunsCode},
	"CREATE_PACKAGE":   {domain.EffectSchemaChange, domain.EffectRunsCode},
	"CREATE_USER":      {domain.EffectPrivilege}, "CREATE_ROLE": {domain.EffectPrivilege},

	"ALTER_TABLE": {domain.EffectSchemaChange}, "ALTER_VIEW": {domain.EffectSchemaChange},
	"ALTER_DATABASE": {domain.EffectSchemaChange}, "ALTER_INDEX": {domain.EffectSchemaChange},
	"ALTER_SEQUENCE": {domain.EffectSchemaChange}, "ALTER_TABLESPACE": {domain.EffectSchemaChange},
	"ALTER_SERVER": {domain.EffectSchemaChange}, "ALTER_PROCEDURE": {domain.EffectSchemaChange},
	"ALTER_FUNCTION": {domain.EffectSchemaChange},
	"ALTER_TRIGGER":  {domain.EffectSchemaChange, domain.EffectRunsCode},
	"ALTER_EVENT":    {domain.EffectSchemaChange, domain.EffectRunsCode}, // ALTER EVENT … DO sets a new body
	"ALTER_PACKAGE":  {domain.EffectSchemaChange, domain.EffectRunsCode},
	"ALTER_USER":     {domain.EffectPrivilege}, "ALTER_ROLE": {domain.EffectPrivilege},
	"ALTER_INSTANCE": {domain.EffectAdmin},
	"RENAME":         {domain.EffectSchemaChange},

	"GRANT": {domain.EffectPrivilege}, "REVOKE": {domain.EffectPrivilege}, "GRANT_ROLE": {domain.EffectPrivilege},
	"REVOKE_ROLE": {domain.EffectPrivilege}, "GRANT_PROXY": {domain.EffectPrivilege},
	"SET_PASSWORD": {domain.EffectPrivilege}, "SET_DEFAULT_ROLE": {domain.EffectPrivilege},

	"SET_GLOBAL": {domain.EffectAdmin}, "KILL": {domain.EffectAdmin}, "SHUTDOWN": {domain.EffectAdmin},
	"RESTART": {domain.EffectAdmin}, "FLUSH": {domain.EffectAdmin}, "INSTALL": {domain.EffectAdmin},
	"UNINSTALL": {domain.EffectAdmin}, "PURGE": {domain.EffectAdmin}, "RESET": {domain.EffectAdmin},
	"REPLICATION": {domain.EffectAdmin}, "ANALYZE": {domain.EffectAdmin}, "OPTIMIZE": {domain.EffectAdmin},
	"REPAIR": {domain.EffectAdmin}, "CHECK": {domain.EffectAdmin}, "CHECKSUM": {domain.EffectAdmin},

	// Without effects: transactions, session state, statements about
	// statements (a PREPARE carries its text's effects, see prepare).
	"BEGIN": nil, "COMMIT": nil, "ROLLBACK": nil, "ROLLBACK_TO": nil, "SAVEPOINT": nil, "RELEASE": nil,
	"XA": nil, "SET": nil, "SET_ROLE": nil, "USE": nil, "PREPARE": nil, "DEALLOCATE": nil, "DO": nil,
	"LOCK": nil, "UNLOCK": nil,
	"CREATE": nil, "ALTER": nil, "DROP": nil, // see effectsOf

	// TiDB's own statements, which MariaDB and MySQL refuse: administration.
	"ADD_QUERY_WATCH": {domain.EffectAdmin}, "ADMIN": {domain.EffectAdmin}, "ALTER_PLACEMENT_POLICY": {domain.EffectAdmin},
	"ALTER_RANGE": {domain.EffectAdmin}, "ALTER_RESOURCE_GROUP": {domain.EffectAdmin}, "BRIE": {domain.EffectAdmin, domain.EffectFileAccess},
	"CALIBRATE_RESOURCE": {domain.EffectAdmin}, "CANCEL_DISTRIBUTION_JOB": {domain.EffectAdmin},
	"CLEANUP_TABLE_LOCK": {domain.EffectAdmin}, "COMPACT_TABLE": {domain.EffectAdmin}, "CREATE_BINDING": {domain.EffectAdmin},
	"CREATE_MASKING_POLICY": {domain.EffectAdmin}, "CREATE_PLACEMENT_POLICY": {domain.EffectAdmin},
	"CREATE_RESOURCE_GROUP": {domain.EffectAdmin}, "CREATE_STATISTICS": {domain.EffectAdmin},
	"DISTRIBUTE_TABLE": {domain.EffectAdmin}, "DROP_BINDING": {domain.EffectAdmin}, "DROP_PLACEMENT_POLICY": {domain.EffectAdmin},
	"DROP_QUERY_WATCH": {domain.EffectAdmin}, "DROP_RESOURCE_GROUP": {domain.EffectAdmin},
	"DROP_STATISTICS": {domain.EffectAdmin}, "DROP_STATS": {domain.EffectAdmin},
	"FLASH_BACK_DATABASE": {domain.EffectAdmin}, "FLASH_BACK_TABLE": {domain.EffectAdmin},
	"FLASH_BACK_TO_TIMESTAMP": {domain.EffectAdmin}, "IMPORT_INTO": {domain.EffectInsert, domain.EffectFileAccess},
	"IMPORT_INTO_ACTION": {domain.EffectAdmin}, "LOAD_STATS": {domain.EffectAdmin}, "LOCK_STATS": {domain.EffectAdmin},
	"NON_TRANSACTIONAL_DML": {domain.EffectAdmin}, "PLAN_REPLAYER": {domain.EffectAdmin},
	"RECOMMEND_INDEX": {domain.EffectAdmin}, "RECOVER_TABLE": {domain.EffectAdmin}, "REFRESH_STATS": {domain.EffectAdmin},
	"SET_BINDING": {domain.EffectAdmin}, "SET_CONFIG": {domain.EffectAdmin}, "SET_RESOURCE_GROUP": {domain.EffectAdmin},
	"SET_SESSION_STATES": {domain.EffectAdmin}, "SPLIT_REGION": {domain.EffectAdmin}, "TRACE": {domain.EffectAdmin},
	"TRAFFIC": {domain.EffectAdmin}, "UNLOCK_STATS": {domain.EffectAdmin},
}

// functionEffects maps called functions (lower case) to their effects.
var functionEffects = map[string][]string{
	"load_file": {domain.EffectFileAccess}, // reads a file of the server's host
	"sys_exec":  {domain.EffectOSCommand},  // lib_mysqludf_sys: runs a shell command
	"sys_eval":  {domain.EffectOSCommand},
}

// effectsOf returns the effects of a statement with these actions and
// functions (each as the walker collects them), in the vocabulary's order.
// A bare CREATE, ALTER or DROP (a text the parser refused, whose object
// word guess.go did not find) is SCHEMA_CHANGE, or DROP for DROP.
func effectsOf(actions, functions []string, more []string) []string {
	var out []string
	for _, a := range actions {
		e, ok := actionEffects[a]
		switch {
		case !ok:
			e = []string{domain.EffectUnknown}
		case (a == "CREATE" || a == "ALTER" || a == "DROP") && !hasPrefixed(actions, a+"_"):
			e = []string{domain.EffectSchemaChange}
			if a == "DROP" {
				e = []string{domain.EffectDrop}
			}
		}
		out = domain.AddEffects(out, e...)
	}
	for _, f := range functions {
		out = domain.AddEffects(out, functionEffects[f]...)
		if strings.Contains(f, ".") || !builtins[f] { // a stored or loadable function (builtins.go)
			out = domain.AddEffects(out, domain.EffectRunsCode)
		}
	}
	out = domain.AddEffects(out, more...)
	return ordered(out)
}

// ordered returns effects in the order of domain.Effects (nil for none).
func ordered(effects []string) []string {
	var out []string
	for _, e := range domain.Effects {
		for _, x := range effects {
			if x == e {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

func hasPrefixed(actions []string, prefix string) bool {
	for _, a := range actions {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

// unreadEffects are the effects of a text the analyzer could not read
// statement by statement, whose first keywords named actions (guess.go):
// theirs, UNKNOWN, and UNBOUNDED beside a DELETE or UPDATE, whose WHERE it
// did not see.
func unreadEffects(actions []string) []string {
	var more []string
	for _, a := range actions {
		if a == "DELETE" || a == "UPDATE" {
			more = []string{domain.EffectUnbounded}
		}
	}
	return effectsOf(actions, nil, append(more, domain.EffectUnknown))
}

// whole is analyzerkit.Whole with the actions' effects.
func whole(text string, actions []string) analyzerkit.Statement {
	st := analyzerkit.Whole(text, actions)
	st.Analysis.Effects = effectsOf(actions, nil, nil)
	return st
}
