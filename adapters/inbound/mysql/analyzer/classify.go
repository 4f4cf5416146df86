package analyzer

import (
	"reflect"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/auth"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// walker collects one statement's analysis while the parse tree is walked
// (ast.Visitor).
type walker struct {
	db   string
	mode Mode
	nest int // PREPARE texts this statement is inside
	analyzerkit.Found
	st Statement
	// err is set when a nested text (PREPARE … FROM '…') is uncheckable.
	err error
	// effects are what the tree shows beyond its actions and functions
	// (effects.go): UNBOUNDED, a PREPAREd text's effects.
	effects []string
}

func newWalker(db string, m Mode, nest int) *walker {
	return &walker{db: db, mode: m, nest: nest, Found: analyzerkit.NewFound()}
}

// classifyStmt returns the analysis of one parsed statement.
func classifyStmt(n ast.StmtNode, db string, m Mode, nest int) (Statement, error) {
	w := newWalker(db, m, nest)
	n.Accept(w)
	return w.statement(), w.err
}

func (w *walker) statement() Statement {
	w.st.Analysis = w.Analysis()
	w.st.Analysis.Effects = effectsOf(w.st.Analysis.Actions, w.st.Analysis.Functions, w.effects)
	return w.st
}

// effect adds effects the tree shows (effects.go).
func (w *walker) effect(e ...string) { w.effects = domain.AddEffects(w.effects, e...) }

// add merges a nested or other reading's analysis in, its effects too.
func (w *walker) add(a domain.Analysis) {
	w.Add(a)
	w.effect(a.Effects...)
}

// Enter implements ast.Visitor: it classifies n and says whether to skip
// its children.
func (w *walker) Enter(n ast.Node) (ast.Node, bool) { return n, !w.classify(n) }

// Leave implements ast.Visitor.
func (w *walker) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// keys returns m's keys sorted (nil for none).
func keys(m map[string]struct{}) []string { return analyzerkit.SortedKeys(m) }

// table adds a table (or view, sequence, procedure) name: db.table, with
// the current database for an unqualified name, and the bare name, so a
// rule reads `prod.users`, `prod.*`, `*.users` or `users`.
func (w *walker) table(schema, name string) {
	if name == "" {
		return
	}
	w.Targets[name] = struct{}{}
	if schema == "" {
		schema = w.db
	}
	if schema != "" {
		w.Targets[schema+"."+name] = struct{}{}
	}
}

// database adds a database name, bare and as db.* (so a rule on `prod.*`
// covers DROP DATABASE prod too).
func (w *walker) database(name string) {
	if name == "" {
		return
	}
	w.Targets[name] = struct{}{}
	w.Targets[name+".*"] = struct{}{}
}

func (w *walker) users(us ...*auth.UserIdentity) {
	for _, u := range us {
		if u == nil || u.Username == "" {
			continue
		}
		w.Targets[u.Username] = struct{}{}
		w.Targets[u.Username+"@"+u.Hostname] = struct{}{}
	}
}

// function adds a called function, lower case, bare and db-qualified when
// written so.
func (w *walker) function(schema, name string) {
	if name == "" {
		return
	}
	name = strings.ToLower(name)
	w.Functions[name] = struct{}{}
	if schema != "" {
		w.Functions[strings.ToLower(schema)+"."+name] = struct{}{}
	}
}

// classify records what node n says about the statement and reports whether
// its children are walked too.
func (w *walker) classify(n ast.Node) bool {
	switch v := n.(type) {
	case *ast.TableName:
		w.table(v.Schema.O, v.Name.O)
	case *ast.FuncCallExpr:
		w.function(v.Schema.O, v.FnName.O)
	case *ast.AggregateFuncExpr:
		w.function("", v.F)
	case *ast.WindowFuncExpr:
		w.function("", v.Name)
	case *ast.SelectStmt:
		w.Act("SELECT")
		if v.LockInfo != nil {
			switch v.LockInfo.LockType {
			case ast.SelectLockForUpdate, ast.SelectLockForUpdateNoWait, ast.SelectLockForUpdateWaitN, ast.SelectLockForUpdateSkipLocked:
				w.Act("SELECT_FOR_UPDATE")
			case ast.SelectLockForShare, ast.SelectLockForShareNoWait, ast.SelectLockForShareSkipLocked:
				w.Act("SELECT_FOR_SHARE")
			}
		}
		if v.SelectIntoOpt != nil { // not a child the parser's walk visits
			w.selectInto(v.SelectIntoOpt)
		}
	case *ast.SetOprStmt:
		w.Act("SELECT")
	case *ast.SelectIntoOption:
		w.selectInto(v)
	case *ast.InsertStmt:
		if v.IsReplace {
			w.Act("REPLACE", "INSERT", "DELETE") // REPLACE deletes the rows it replaces
		} else {
			w.Act("INSERT")
		}
		if len(v.OnDuplicate) > 0 {
			w.Act("UPDATE")
		}
		// … SELECT with ON DUPLICATE KEY UPDATE, or REPLACE … SELECT, may
		// rewrite every row of the table (INSERT INTO t SELECT * FROM t …);
		// a VALUES list reaches the rows of its keys only.
		if v.Select != nil && (len(v.OnDuplicate) > 0 || v.IsReplace) {
			w.effect(domain.EffectUnbounded)
		}
	case *ast.UpdateStmt:
		w.Act("UPDATE")
		if updateUnbounded(v) { // bounds.go
			w.effect(domain.EffectUnbounded)
		}
	case *ast.DeleteStmt:
		w.Act("DELETE")
		if deleteUnbounded(v) {
			w.effect(domain.EffectUnbounded)
		}
	case *ast.LoadDataStmt:
		w.Act("LOAD_DATA", "INSERT")
		if v.FileLocRef == ast.FileLocClient {
			w.Act("LOAD_DATA_LOCAL")
			w.st.LoadLocal = true
		}
		if v.OnDuplicate == ast.OnDuplicateKeyHandlingReplace {
			w.Act("REPLACE", "DELETE")
		}
	case *ast.CallStmt:
		w.Act("CALL")
		w.st.change.unknown = true // a procedure may SET NAMES
	case *ast.TruncateTableStmt:
		w.Act("TRUNCATE")
	case *ast.DoStmt:
		w.Act("DO")
	case *ast.DropTableStmt:
		if v.IsView {
			w.Act("DROP", "DROP_VIEW")
		} else {
			w.Act("DROP", "DROP_TABLE")
		}
	case *ast.DropDatabaseStmt:
		w.Act("DROP", "DROP_DATABASE")
		w.database(v.Name.O)
	case *ast.DropUserStmt:
		if v.IsDropRole {
			w.Act("DROP", "DROP_ROLE")
		} else {
			w.Act("DROP", "DROP_USER")
		}
		w.users(v.UserList...)
	case *ast.DropProcedureStmt:
		w.Act("DROP", "DROP_PROCEDURE")
	case *ast.CreateDatabaseStmt:
		w.Act("CREATE", "CREATE_DATABASE")
		w.database(v.Name.O)
	case *ast.AlterDatabaseStmt:
		w.Act("ALTER", "ALTER_DATABASE")
		if v.AlterDefaultDatabase {
			w.database(w.db)
		} else {
			w.database(v.Name.O)
		}
	case *ast.CreateUserStmt:
		if v.IsCreateRole {
			w.Act("CREATE", "CREATE_ROLE")
		} else {
			w.Act("CREATE", "CREATE_USER")
		}
		for _, s := range v.Specs {
			w.users(s.User)
		}
	case *ast.AlterUserStmt:
		w.Act("ALTER", "ALTER_USER")
		for _, s := range v.Specs {
			w.users(s.User)
		}
	case *ast.RenameUserStmt:
		w.Act("ALTER", "ALTER_USER", "RENAME")
		for _, u := range v.UserToUsers {
			w.users(u.OldUser, u.NewUser)
		}
	case *ast.ProcedureInfo:
		w.Act("CREATE", "CREATE_PROCEDURE")
		if v.ProcedureName != nil {
			w.table(v.ProcedureName.Schema.O, v.ProcedureName.Name.O)
		}
		return false // the body runs on CALL
	case *ast.CreateViewStmt:
		w.Act("CREATE", "CREATE_VIEW")
		if v.OrReplace {
			w.Act("ALTER", "ALTER_VIEW")
		}
	case *ast.AlterTableStmt:
		w.Act("ALTER", "ALTER_TABLE")
		for _, s := range v.Specs {
			switch s.Tp {
			case ast.AlterTableRenameTable:
				w.Act("RENAME")
			case ast.AlterTableDropColumn, ast.AlterTableDropPartition, ast.AlterTableDiscardTablespace,
				ast.AlterTableDiscardPartitionTablespace:
				w.effect(domain.EffectDrop) // the column's, partition's or tablespace's data goes
			case ast.AlterTableOption:
				for _, o := range s.Options {
					if o.Tp == ast.TableOptionEngine && strings.EqualFold(o.StrValue, "BLACKHOLE") {
						w.effect(domain.EffectDrop) // the rows are discarded
					}
				}
			case ast.AlterTableTruncatePartition:
				w.effect(domain.EffectTruncate, domain.EffectUnbounded)
			}
		}
	case *ast.CreateTableStmt:
		w.generic("CreateTableStmt")
		if v.Select != nil { // CREATE TABLE … SELECT fills the new table
			w.effect(domain.EffectInsert)
		}
	case *ast.RenameTableStmt:
		w.Act("ALTER", "ALTER_TABLE", "RENAME")
	case *ast.GrantStmt:
		w.Act("GRANT")
		w.grantLevel(v.Level)
		for _, s := range v.Users {
			w.users(s.User)
		}
	case *ast.RevokeStmt:
		w.Act("REVOKE")
		w.grantLevel(v.Level)
		for _, s := range v.Users {
			w.users(s.User)
		}
	case *ast.GrantRoleStmt:
		w.Act("GRANT", "GRANT_ROLE")
		w.users(v.Users...)
	case *ast.RevokeRoleStmt:
		w.Act("REVOKE", "REVOKE_ROLE")
		w.users(v.Users...)
	case *ast.GrantProxyStmt:
		w.Act("GRANT", "GRANT_PROXY")
		w.users(v.LocalUser)
		w.users(v.ExternalUsers...)
	case *ast.BeginStmt:
		w.Act("BEGIN")
	case *ast.CommitStmt:
		w.Act("COMMIT")
	case *ast.RollbackStmt:
		if v.SavepointName != "" {
			w.Act("ROLLBACK_TO")
		} else {
			w.Act("ROLLBACK")
		}
	case *ast.SavepointStmt:
		w.Act("SAVEPOINT")
	case *ast.ReleaseSavepointStmt:
		w.Act("RELEASE")
	case *ast.SetStmt:
		w.Act("SET")
		w.setChange(v)
		for _, a := range v.Variables {
			if a != nil && a.IsSystem && (a.IsGlobal || a.IsInstance) {
				w.Act("SET_GLOBAL")
			}
		}
	case *ast.SetPwdStmt:
		w.Act("SET", "SET_PASSWORD")
		w.users(v.User)
	case *ast.SetRoleStmt:
		w.Act("SET", "SET_ROLE")
	case *ast.SetDefaultRoleStmt:
		w.Act("SET", "SET_DEFAULT_ROLE")
		w.users(v.UserList...)
	case *ast.ShowStmt:
		w.Act("SHOW")
	case *ast.ExplainStmt:
		w.Act("EXPLAIN")
		return v.Analyze // EXPLAIN ANALYZE runs the statement
	case *ast.ExplainForStmt:
		w.Act("EXPLAIN")
	case *ast.PrepareStmt:
		w.Act("PREPARE")
		w.prepare(v)
		return false // the text runs on EXECUTE
	case *ast.ExecuteStmt:
		w.Act("EXECUTE")
		w.st.Execute = v.Name
		w.st.change.unknown = true // the prepared text may be a SET
	case *ast.DeallocateStmt:
		w.Act("DEALLOCATE")
		w.st.Deallocate = v.Name
	case *ast.UseStmt:
		w.Act("USE")
		w.st.UseDB = v.DBName
		w.Targets[v.DBName] = struct{}{}
	case *ast.KillStmt:
		w.Act("KILL")
		if v.Expr == nil {
			w.st.Kill = &Kill{ID: v.ConnectionID, QueryOnly: v.Query}
		}
	case *ast.FlushStmt:
		w.Act("FLUSH")
		if v.ReadLock {
			w.Act("LOCK")
		}
	case *ast.LockTablesStmt:
		w.Act("LOCK")
	case *ast.UnlockTablesStmt:
		w.Act("UNLOCK")
	case *ast.AnalyzeTableStmt:
		w.Act("ANALYZE")
	case *ast.OptimizeTableStmt:
		w.Act("OPTIMIZE")
	case *ast.RepairTableStmt:
		w.Act("REPAIR")
	default:
		if _, ok := n.(ast.StmtNode); ok {
			w.generic(reflect.TypeOf(n).Elem().Name())
		}
	}
	return true
}

// selectInto classifies SELECT … INTO: OUTFILE and DUMPFILE write a file on
// the database server; INTO @var sets session variables.
func (w *walker) selectInto(v *ast.SelectIntoOption) {
	switch v.Tp {
	case ast.SelectIntoOutfile:
		w.Act("SELECT_INTO", "SELECT_INTO_OUTFILE")
	case ast.SelectIntoDumpfile:
		w.Act("SELECT_INTO", "SELECT_INTO_DUMPFILE")
	default:
		w.Act("SELECT_INTO")
	}
}

// grantLevel adds a GRANT/REVOKE's object: db.table, db.* or *.*.
func (w *walker) grantLevel(l *ast.GrantLevel) {
	if l == nil {
		return
	}
	db := l.DBName
	if db == "" {
		db = w.db
	}
	switch l.Level {
	case ast.GrantLevelGlobal:
		w.Targets["*.*"] = struct{}{}
	case ast.GrantLevelDB:
		w.database(db)
	case ast.GrantLevelTable:
		w.table(l.DBName, l.TableName)
	}
}

// prepare analyses PREPARE's text: the statement carries the kinds of what
// it prepares, so a rule on DELETE holds PREPARE of a DELETE. A text in a
// user variable is not known: UNKNOWN.
func (w *walker) prepare(v *ast.PrepareStmt) {
	p := &Prepared{Name: v.Name}
	w.st.Prepare = p
	if v.SQLVar != nil {
		w.Act(domain.ActionUnknown)
		w.effect(domain.EffectRunsCode) // a text the analyzer never sees
		p.Analysis = domain.UnreadRun()
		return
	}
	if w.nest >= maxNesting {
		w.err = errNested
		return
	}
	r := analyze(v.SQLText, w.db, w.mode, w.nest+1)
	if r.Err != nil {
		w.Act(domain.ActionUnknown)
		if isUncheckable(r.Err) {
			w.err = r.Err
		}
	}
	inner := newWalker(w.db, w.mode, 0)
	for _, st := range r.Statements {
		inner.add(st.Analysis)
		w.add(st.Analysis)
	}
	p.Analysis = inner.statement().Analysis
}

// generic names any other statement node after its type: CreateXStmt →
// CREATE, CREATE_X; AlterXStmt → ALTER, ALTER_X; DropXStmt → DROP, DROP_X;
// any other XStmt → X (CamelCase to SNAKE_CASE).
func (w *walker) generic(name string) {
	if a := genericActions(name); len(a) > 0 {
		w.Act(a...)
	}
}

// genericActions is analyzerkit.NodeActions of a TiDB node's type name.
func genericActions(name string) []string { return analyzerkit.NodeActions(name, nil) }
