package analyzer

import (
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Actions returns every action the analyzer can report, upper case, sorted:
// the vocabulary of a mysql listener's rules (docs/mysql-listener.md,
// "Analyzer"). `sidecar validate` refuses any other action, so a typo
// (DORP) cannot silently turn a rule off.
//
// The named actions are listed here (named); every other statement the
// parser reads is named after its parse-tree node (generic), and the list
// of those nodes is parserStatements: a test walks the parser's statement
// types so a new parser version cannot add one unnoticed. Texts the parser
// refuses are named by their first keywords (guess.go): CREATE_, ALTER_ and
// DROP_ with each object word there, and the verbs there.
func Actions() []string { return vocabulary.Actions() }

// IsAction reports whether action (any case) is in Actions.
func IsAction(action string) bool { return vocabulary.IsAction(action) }

// named are the actions classify gives by name.
var named = []string{
	domain.ActionUnknown,
	"SELECT", "SELECT_INTO", "SELECT_INTO_OUTFILE", "SELECT_INTO_DUMPFILE", "SELECT_FOR_UPDATE", "SELECT_FOR_SHARE",
	"INSERT", "UPDATE", "DELETE", "REPLACE", "LOAD_DATA", "LOAD_DATA_LOCAL", "CALL", "DO", "TRUNCATE",
	"DROP", "DROP_TABLE", "DROP_VIEW", "DROP_DATABASE", "DROP_USER", "DROP_ROLE", "DROP_PROCEDURE",
	"CREATE", "CREATE_DATABASE", "CREATE_USER", "CREATE_ROLE", "CREATE_PROCEDURE", "CREATE_VIEW",
	"ALTER", "ALTER_DATABASE", "ALTER_USER", "ALTER_VIEW", "ALTER_TABLE", "RENAME",
	"GRANT", "REVOKE", "GRANT_ROLE", "REVOKE_ROLE", "GRANT_PROXY",
	"BEGIN", "COMMIT", "ROLLBACK", "ROLLBACK_TO", "SAVEPOINT", "RELEASE",
	"SET", "SET_GLOBAL", "SET_PASSWORD", "SET_ROLE", "SET_DEFAULT_ROLE",
	"SHOW", "EXPLAIN", "PREPARE", "EXECUTE", "DEALLOCATE", "USE", "KILL", "FLUSH", "LOCK", "UNLOCK",
	"ANALYZE", "OPTIMIZE", "REPAIR",
}

// parserStatements are the statement node types of the parser that classify
// names generically (their type names, as reflect gives them).
var parserStatements = []string{
	"AddQueryWatchStmt", "AdminStmt", "AlterInstanceStmt", "AlterPlacementPolicyStmt", "AlterRangeStmt",
	"AlterResourceGroupStmt", "AlterSequenceStmt", "BRIEStmt", "BinlogStmt", "CalibrateResourceStmt",
	"CancelDistributionJobStmt", "CleanupTableLockStmt", "CompactTableStmt", "CreateBindingStmt",
	"CreateIndexStmt", "CreateMaskingPolicyStmt", "CreatePlacementPolicyStmt", "CreateResourceGroupStmt",
	"CreateSequenceStmt", "CreateStatisticsStmt", "CreateTableStmt", "DistributeTableStmt", "DropBindingStmt",
	"DropIndexStmt", "DropPlacementPolicyStmt", "DropQueryWatchStmt", "DropResourceGroupStmt",
	"DropSequenceStmt", "DropStatisticsStmt", "DropStatsStmt", "FlashBackDatabaseStmt",
	"FlashBackTableStmt", "FlashBackToTimestampStmt", "HelpStmt", "ImportIntoActionStmt", "ImportIntoStmt",
	"LoadStatsStmt", "LockStatsStmt", "NonTransactionalDMLStmt", "PlanReplayerStmt", "RecommendIndexStmt",
	"RecoverTableStmt", "RefreshStatsStmt", "RestartStmt", "SetBindingStmt", "SetConfigStmt",
	"SetResourceGroupStmt", "SetSessionStatesStmt", "ShutdownStmt", "SplitRegionStmt", "TrafficStmt",
	"TraceStmt", "UnlockStatsStmt",
}

var vocabulary = analyzerkit.NewVocabulary(func(add func(...string)) {
	add(named...)
	add(guessVerbs...) // guess.go
	add("REPLICATION")
	for _, verb := range []string{"CREATE", "ALTER", "DROP"} {
		for _, o := range guessObjects {
			add(verb + "_" + o)
		}
	}
	for _, s := range parserStatements {
		add(genericActions(s)...)
	}
})
