package analyzer

import (
	"reflect"
	"strings"
	"sync"

	"github.com/bytebase/parser/tsql"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Actions returns every action the analyzer can report, upper case, sorted:
// the vocabulary of an mssql listener's rules (docs/mssql-listener.md,
// "Analyzer"). `sidecar validate` refuses any other action, so a typo
// (DORP) cannot silently turn a rule off.
//
// Statement kinds come from the grammar: each alternative of its statement
// rules (ddl_clause, another_statement, dbcc_clause, …) is named after its
// rule (drop_table → DROP, DROP_TABLE; dbcc_checkdb → DBCC, DBCC_CHECKDB),
// found by reflection over the parser's context types, so a new grammar
// version changes the list with it. Then the kinds classify names itself
// (named) and those guess.go gives texts the grammar refuses.
func Actions() []string { return vocabulary.Actions() }

// IsAction reports whether action (any case) is in Actions.
func IsAction(action string) bool { return vocabulary.IsAction(action) }

// named are the actions classify gives outside statementRules.
var named = []string{
	domain.ActionUnknown, "SELECT", "SELECT_INTO", "CREATE", "CREATE_TABLE", "INSERT", "UPDATE", "DELETE", "EXEC", "EXECUTE_AS",
	"GRANT", "REVERT", "DENY", "REVOKE", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "TRANSACTION", "SET_XACT_ABORT",
}

var vocabulary = analyzerkit.NewVocabulary(func(add func(...string)) {
	// The grammar's rule names are set up on the parser's first use, and
	// Actions may come first (`sidecar validate` parses nothing): names
	// below must not be read before that.
	tsql.TSqlParserInit()
	add(named...)
	add(guessVocabulary()...)
	names := tsql.TSqlParserParserStaticData.RuleNames
	for rule, acts := range statementRules() {
		for _, a := range acts {
			add(a)
			if orAlterRule(names[rule]) && strings.HasPrefix(a, "CREATE") {
				add("ALTER" + strings.TrimPrefix(a, "CREATE"))
			}
		}
	}
})

// statementCategories are the grammar rules whose alternatives are
// statements.
var statementCategories = []any{
	(*tsql.Dml_clauseContext)(nil), (*tsql.Ddl_clauseContext)(nil), (*tsql.Another_statementContext)(nil),
	(*tsql.Cfl_statementContext)(nil), (*tsql.Dbcc_clauseContext)(nil), (*tsql.Backup_statementContext)(nil),
	(*tsql.Batch_level_statementContext)(nil), (*tsql.Security_statementContext)(nil),
}

// securityStatements are the rule children of security_statement that are
// statements; the others are parts of its GRANT.
var securityStatements = map[string]bool{"open_key": true, "close_key": true, "create_key": true, "create_certificate": true}

// statementRules maps the rule index of each statement rule to its actions
// (rules such as if_statement, whose statements inside carry the actions,
// are absent).
var statementRules = sync.OnceValue(func() map[int][]string {
	tsql.TSqlParserInit()
	names := tsql.TSqlParserParserStaticData.RuleNames
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	out := map[int][]string{}
	for _, c := range statementCategories {
		t := reflect.TypeOf(c)
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			rule := strings.ToLower(m.Name)
			k, ok := index[rule]
			if !ok || m.Type.NumIn() != 1 || m.Type.NumOut() != 1 || m.Type.Out(0).Name() != "I"+m.Name+"Context" {
				continue // a token, or a list getter
			}
			if _, ok := c.(*tsql.Security_statementContext); ok && !securityStatements[rule] {
				continue // GRANT's permission, object and principals
			}
			if acts := ruleActions(rule); len(acts) > 0 {
				out[k] = acts
			}
		}
	}
	return out
})

// isCreateRule reports rules that read CREATE, CREATE OR ALTER or ALTER.
func isCreateRule(rule int) bool {
	return orAlterRule(tsql.TSqlParserParserStaticData.RuleNames[rule])
}

func orAlterRule(name string) bool {
	return strings.HasPrefix(name, "create_or_alter_") || name == "create_view"
}

// fixedActions names the statement rules whose names do not say their
// kind, or say it otherwise than the postgres and mysql analyzers do. An
// empty list: the rule adds nothing itself (control of flow, or classify
// names it from its tokens).
var fixedActions = map[string][]string{
	"select_statement_standalone": {"SELECT"},
	"insert_statement":            {"INSERT"},
	"update_statement":            {"UPDATE"},
	"delete_statement":            {"DELETE"},
	"merge_statement":             {"MERGE"},
	"block_statement":             nil,
	"if_statement":                nil,
	"while_statement":             nil,
	"try_catch_statement":         nil,
	"break_statement":             nil,
	"continue_statement":          nil,
	"goto_statement":              nil,
	"return_statement":            nil,
	"execute_statement":           nil, // execute_body: EXEC, or the dynamic SQL's own kinds
	"execute_clause":              nil, // EXECUTE_AS
	"security_statement":          nil, // GRANT, REVERT, or its rule children
	"transaction_statement":       nil, // BEGIN, COMMIT, ROLLBACK, SAVEPOINT
	"raiseerror_statement":        {"RAISERROR"},
	"message_statement":           {"CREATE", "CREATE_MESSAGE_TYPE"},
	"lock_table":                  {"LOCK"},
	"truncate_table":              {"TRUNCATE"},
	"update_statistics":           {"UPDATE_STATISTICS"},
	"enable_trigger":              {"ALTER", "ENABLE_TRIGGER"},
	"disable_trigger":             {"ALTER", "DISABLE_TRIGGER"},
	"open_key":                    {"OPEN_KEY"},
	"close_key":                   {"CLOSE_KEY"},
}

// objectWords rewrites the object part of grammar rule names.
var objectWords = strings.NewReplacer("db_role", "role", "cryptograhic_provider", "cryptographic_provider",
	"nonclustered_columnstore_index", "index", "columnstore_index", "index", "spatial_index", "index",
	"xml_index", "index", "event_notifications", "event_notification", "statistics_name", "statistics")

// dialectSuffixes are the grammar's per-product variants of one statement.
var dialectSuffixes = []string{"_azure_sql_dw_and_pdw", "_azure_dw_and_pdw", "_for_parallel_dw", "_for_sql_database",
	"_for_azure_dw", "_azure_sql_dw", "_azure_sql", "_sql_server", "_pdw", "_sql"}

// ruleActions names a statement rule: create_X, alter_X, drop_X → CREATE,
// CREATE_X …; dbcc_X → DBCC, DBCC_X; backup_X → BACKUP, BACKUP_X; any other
// X_statement → X.
func ruleActions(rule string) []string {
	if a, ok := fixedActions[rule]; ok {
		return a
	}
	for _, verb := range []string{"create", "alter", "drop", "dbcc", "backup"} {
		if !strings.HasPrefix(rule, verb+"_") {
			continue
		}
		obj := strings.TrimPrefix(strings.TrimPrefix(rule, verb+"_"), "or_alter_")
		for _, s := range dialectSuffixes {
			if strings.HasSuffix(obj, s) {
				obj = strings.TrimSuffix(obj, s)
				break
			}
		}
		obj = objectWords.Replace(obj)
		if strings.HasPrefix(obj, "authorization") {
			obj = "authorization"
		}
		v := strings.ToUpper(verb)
		return []string{v, v + "_" + strings.ToUpper(obj)}
	}
	return []string{strings.ToUpper(strings.TrimSuffix(rule, "_statement"))}
}
