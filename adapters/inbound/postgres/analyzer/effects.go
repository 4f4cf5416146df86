package analyzer

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/hoophq/sidecar/domain"
)

// Effects: what each node of PostgreSQL's parse tree adds to a statement's
// domain.Analysis.Effects (docs/rules.md, "Which statements carry which
// effect", has the postgres rows and TestEffectsTable checks them). The
// walker calls effect on every node it visits, so a DELETE inside a CTE, a
// SELECT in an INSERT or COPY (query) adds its own effects; EXPLAIN without
// ANALYZE and PREPARE walk no further (their statement does not run now).
//
//   - SELECT (not a bare VALUES list that an INSERT inserts), TABLE, FETCH,
//     COPY … TO, EXPLAIN: READ. SELECT … INTO and CREATE TABLE AS: READ,
//     INSERT and SCHEMA_CHANGE (they create a table and fill it).
//   - INSERT, COPY … FROM: INSERT; ON CONFLICT DO UPDATE adds UPDATE, and
//     UNBOUNDED when the rows come from a query (not VALUES or constants).
//   - UPDATE, DELETE, MERGE's WHEN clauses: UPDATE / DELETE / INSERT, and
//     UNBOUNDED as where.go decides (no WHERE, or one that reaches every row;
//     mergeEffects for MERGE).
//   - TRUNCATE: TRUNCATE and UNBOUNDED.
//   - COPY to or from a server file: FILE_ACCESS; COPY … PROGRAM: FILE_ACCESS
//     and OS_COMMAND.
//   - DROP …: DROP (DROP ROLE, DROP OWNED and DROP USER MAPPING add
//     PRIVILEGE).
//   - CREATE, ALTER, RENAME, COMMENT, SECURITY LABEL, CREATE RULE / TRIGGER /
//     INDEX / VIEW…: SCHEMA_CHANGE; ALTER TABLE … DROP COLUMN adds DROP,
//     ALTER COLUMN … TYPE adds UPDATE and UNBOUNDED (every row rewritten);
//     CREATE TABLESPACE adds FILE_ACCESS (a directory on the server); CREATE / ALTER EXTENSION add RUNS_CODE (the
//     extension's script, unread); REFRESH MATERIALIZED VIEW: UPDATE.
//   - GRANT, REVOKE, CREATE / ALTER / DROP ROLE, ALTER DEFAULT PRIVILEGES,
//     REASSIGN OWNED, ALTER … OWNER TO (also SCHEMA_CHANGE), row security
//     policies and ALTER TABLE … ROW LEVEL SECURITY (also SCHEMA_CHANGE), user mappings, SET ROLE, SET SESSION
//     AUTHORIZATION, ALTER ROLE … RENAME (also SCHEMA_CHANGE): PRIVILEGE.
//   - SET session_replication_role (superuser: it can turn triggers and
//     foreign keys off): ADMIN.
//   - DO, CALL, LOAD (a shared library, also FILE_ACCESS): RUNS_CODE. The
//     session adds UNKNOWN and RUNS_CODE for an EXECUTE of a statement it
//     never saw prepared.
//   - ALTER SYSTEM, ALTER DATABASE … SET, VACUUM, ANALYZE, CLUSTER, REINDEX,
//     CHECKPOINT: ADMIN.
//   - function calls: functionEffects (functions.go).
//   - SET search_path listing pg_catalog after another schema: RUNS_CODE
//     (functions.go says why).
//   - BEGIN/COMMIT/…, SET (other than the above), RESET, SHOW, LISTEN,
//     NOTIFY, UNLISTEN, DISCARD, LOCK, DECLARE's own node, CLOSE, PREPARE,
//     DEALLOCATE, SET CONSTRAINTS: none. Any other statement node: UNKNOWN
//     (noEffect and the generic rules below name every node PostgreSQL 17
//     has; a new one fails closed).
func (w *walker) effect(n proto.Message) {
	switch v := n.(type) {
	case *pg.SelectStmt:
		if w.insertValues != v {
			w.Effect(domain.EffectRead)
		}
		if v.IntoClause != nil {
			w.Effect(domain.EffectInsert, domain.EffectSchemaChange)
		}
	case *pg.InsertStmt:
		w.Effect(domain.EffectInsert)
		// INSERT … VALUES is a SelectStmt holding only the values: it reads nothing.
		s := v.SelectStmt.GetSelectStmt()
		if s != nil && len(s.ValuesLists) > 0 && len(s.FromClause) == 0 {
			w.insertValues = s
		}
		// ON CONFLICT DO UPDATE updates one row per row inserted: a query
		// that reads a table (the written one: INSERT INTO t SELECT * FROM t)
		// may propose every row.
		if v.OnConflictClause.GetAction() == pg.OnConflictAction_ONCONFLICT_UPDATE && s != nil && w.insertValues != s {
			if _, ok := constantRows(v.SelectStmt); !ok {
				w.Effect(domain.EffectUnbounded)
			}
		}
	case *pg.OnConflictClause:
		if v.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
			w.Effect(domain.EffectUpdate)
		}
	case *pg.UpdateStmt:
		w.Effect(domain.EffectUpdate)
		if w.unbounded(v.WhereClause, scope{self: writtenName(v.Relation)}) {
			w.Effect(domain.EffectUnbounded)
		}
	case *pg.DeleteStmt:
		w.Effect(domain.EffectDelete)
		if w.unbounded(v.WhereClause, scope{self: writtenName(v.Relation)}) {
			w.Effect(domain.EffectUnbounded)
		}
	case *pg.MergeStmt:
		w.mergeEffects(v)
	case *pg.TruncateStmt:
		w.Effect(domain.EffectTruncate, domain.EffectUnbounded)
	case *pg.CopyStmt:
		if v.IsFrom {
			w.Effect(domain.EffectInsert)
		} else {
			w.Effect(domain.EffectRead)
		}
		if v.IsProgram {
			w.Effect(domain.EffectOSCommand, domain.EffectFileAccess)
		} else if v.Filename != "" {
			w.Effect(domain.EffectFileAccess)
		}
	case *pg.ExplainStmt, *pg.FetchStmt:
		w.Effect(domain.EffectRead)
	case *pg.CreateTableAsStmt:
		w.Effect(domain.EffectSchemaChange, domain.EffectInsert)
	case *pg.FuncCall:
		w.Effect(functionEffects(strs(v.Funcname))...)
	case *pg.VariableSetStmt:
		switch {
		case v.Name == "role" || v.Name == "session_authorization":
			w.Effect(domain.EffectPrivilege)
		case v.Name == "search_path" && catalogNotFirst(v.Args):
			w.Effect(domain.EffectRunsCode)
		case v.Name == "session_replication_role":
			w.Effect(domain.EffectAdmin) // `replica` turns triggers and foreign keys off
		}
	case *pg.RenameStmt:
		w.Effect(domain.EffectSchemaChange)
		if v.RenameType == pg.ObjectType_OBJECT_ROLE {
			w.Effect(domain.EffectPrivilege)
		}
	case *pg.AlterTableCmd:
		switch v.Subtype {
		case pg.AlterTableType_AT_DropColumn:
			w.Effect(domain.EffectDrop) // the column's data goes
		case pg.AlterTableType_AT_AlterColumnType:
			// Every row is rewritten: USING may set any value, and the
			// assignment cast without it may round (numeric's scale) or cut
			// (timestamp to date).
			w.Effect(domain.EffectUpdate, domain.EffectUnbounded)
		case pg.AlterTableType_AT_ChangeOwner, pg.AlterTableType_AT_EnableRowSecurity,
			pg.AlterTableType_AT_DisableRowSecurity, pg.AlterTableType_AT_ForceRowSecurity,
			pg.AlterTableType_AT_NoForceRowSecurity:
			w.Effect(domain.EffectPrivilege)
		}
	case *pg.RefreshMatViewStmt:
		w.Effect(domain.EffectUpdate)
	default:
		name := string(n.ProtoReflect().Descriptor().Name())
		if strings.HasSuffix(name, "Stmt") && name != "RawStmt" {
			w.Effect(stmtEffects(name)...)
		}
	}
}

// catalogNotFirst reports whether a search_path lists pg_catalog after
// another schema: unqualified names of PostgreSQL's functions may then call
// a user's function of the same name (functionEffects reads them as
// PostgreSQL's own), so the SET carries RUNS_CODE.
func catalogNotFirst(args []*pg.Node) bool {
	for i, a := range args {
		if s := a.GetAConst().GetSval(); s != nil && strings.EqualFold(strings.TrimSpace(s.Sval), "pg_catalog") {
			return i > 0
		}
	}
	return false
}

// stmtEffects returns the effects of a statement node (its pg_query message
// name, e.g. "DropRoleStmt") that effect has no case of its own for.
func stmtEffects(name string) []string {
	if e, ok := nodeEffects[name]; ok {
		return e
	}
	if _, ok := noEffect[name]; ok {
		return nil
	}
	switch {
	case strings.HasPrefix(name, "Drop"):
		return []string{domain.EffectDrop}
	case strings.HasPrefix(name, "Create"), strings.HasPrefix(name, "Alter"):
		return []string{domain.EffectSchemaChange}
	}
	return []string{domain.EffectUnknown}
}

var (
	privilege    = []string{domain.EffectPrivilege}
	schemaChange = []string{domain.EffectSchemaChange}
	admin        = []string{domain.EffectAdmin}
	runsCode     = []string{domain.EffectRunsCode}
	storedCode   = []string{domain.EffectSchemaChange, domain.EffectRunsCode}
)

// nodeEffects names the statement nodes whose effects their name's prefix
// (Drop…, Create…, Alter…) does not say.
var nodeEffects = map[string][]string{
	"GrantStmt": privilege, "GrantRoleStmt": privilege, "CreateRoleStmt": privilege,
	"AlterRoleStmt": privilege, "AlterRoleSetStmt": privilege,
	"AlterDefaultPrivilegesStmt": privilege, "ReassignOwnedStmt": privilege,
	"DropRoleStmt":               {domain.EffectDrop, domain.EffectPrivilege},
	"DropOwnedStmt":              {domain.EffectDrop, domain.EffectPrivilege},
	"DropUserMappingStmt":        {domain.EffectDrop, domain.EffectPrivilege},
	"CreateUserMappingStmt":      {domain.EffectSchemaChange, domain.EffectPrivilege},
	"AlterUserMappingStmt":       {domain.EffectSchemaChange, domain.EffectPrivilege},
	"AlterOwnerStmt":             {domain.EffectSchemaChange, domain.EffectPrivilege},
	"CreatePolicyStmt":           {domain.EffectSchemaChange, domain.EffectPrivilege},
	"AlterPolicyStmt":            {domain.EffectSchemaChange, domain.EffectPrivilege},
	"CreateTableSpaceStmt":       {domain.EffectSchemaChange, domain.EffectFileAccess},
	"CreateExtensionStmt":        {domain.EffectSchemaChange, domain.EffectRunsCode},
	"AlterExtensionStmt":         {domain.EffectSchemaChange, domain.EffectRunsCode},
	"AlterExtensionContentsStmt": schemaChange,
	"AlterSystemStmt":            admin, "AlterDatabaseSetStmt": admin,
	"VacuumStmt": admin, "ClusterStmt": admin, "ReindexStmt": admin, "CheckPointStmt": admin,
	"DoStmt": runsCode, "CallStmt": runsCode,
	// Code stored to run later: a function or procedure (which may shadow a
	// built-in's name: docs/postgres-listener.md, "Effects"), a trigger or
	// an event trigger (it fires with no statement of its own for the gate to
	// hold), a rule (it rewrites later statements). RUNS_CODE as on mysql and
	// mssql, so preset: destructive holds the setup step too.
	"CreateFunctionStmt": storedCode, "AlterFunctionStmt": storedCode,
	"CreateTrigStmt": storedCode, "CreateEventTrigStmt": storedCode, "AlterEventTrigStmt": storedCode,
	"RuleStmt":    storedCode,
	"LoadStmt":    {domain.EffectRunsCode, domain.EffectFileAccess},
	"CommentStmt": schemaChange, "SecLabelStmt": schemaChange,
	"DefineStmt": schemaChange, "IndexStmt": schemaChange, "ViewStmt": schemaChange,
	"CompositeTypeStmt": schemaChange, "CreatedbStmt": schemaChange,
	"AlterdbStmt": schemaChange, "DropdbStmt": {domain.EffectDrop},
	"ImportForeignSchemaStmt": schemaChange, "AlterObjectSchemaStmt": schemaChange,
	"AlterObjectDependsStmt": schemaChange,
	"CreateSeqStmt":          schemaChange, "AlterSeqStmt": schemaChange, "ReplicaIdentityStmt": schemaChange,
}

// noEffect names the statement nodes that carry no effect: a session's
// own state, transactions, notifications, cursors and the statements whose
// query runs later (PREPARE: EXECUTE adds it). ExecuteStmt is here because
// the session adds what the prepared statement does.
var noEffect = map[string]struct{}{
	"TransactionStmt": {}, "VariableShowStmt": {}, "ListenStmt": {}, "NotifyStmt": {},
	"UnlistenStmt": {}, "DiscardStmt": {}, "LockStmt": {}, "DeclareCursorStmt": {},
	"ClosePortalStmt": {}, "PrepareStmt": {}, "ExecuteStmt": {}, "DeallocateStmt": {},
	"ConstraintsSetStmt": {}, "VariableSetStmt": {}, "ReturnStmt": {}, "PLAssignStmt": {},
	"SetOperationStmt": {}, // a UNION's node after analysis: the raw tree has SelectStmt
}

// mergeEffects: each WHEN clause's command, and UNBOUNDED when a WHEN
// MATCHED UPDATE or DELETE may reach every row, or when a WHEN NOT MATCHED
// BY SOURCE clause updates or deletes (with an empty source, that is every
// row of the target). A WHEN MATCHED clause is bounded only when the source
// is a constant row set (constantRows: VALUES, SELECT $1 AS id) and the ON
// condition, with the source's columns read as the constants they are,
// chooses rows of the target as a WHERE would (where.go). A source that
// reads a table may hold every row's key (MERGE INTO t USING t s ON t.id =
// s.id).
func (w *walker) mergeEffects(v *pg.MergeStmt) {
	everyRow := true
	if cols, ok := constantRows(v.SourceRelation); ok {
		everyRow = w.unbounded(v.JoinCondition, scope{self: writtenName(v.Relation), merge: true, sourceCols: cols})
	}
	for _, c := range v.MergeWhenClauses {
		wc := c.GetMergeWhenClause()
		if wc == nil {
			continue
		}
		writes := true
		switch wc.CommandType {
		case pg.CmdType_CMD_DELETE:
			w.Effect(domain.EffectDelete)
		case pg.CmdType_CMD_UPDATE:
			w.Effect(domain.EffectUpdate)
		case pg.CmdType_CMD_INSERT:
			w.Effect(domain.EffectInsert)
			writes = false
		default:
			writes = false
		}
		switch {
		case !writes:
		case wc.MatchKind == pg.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_SOURCE,
			wc.MatchKind == pg.MergeMatchKind_MERGE_WHEN_MATCHED && everyRow:
			w.Effect(domain.EffectUnbounded)
		}
	}
}
