package analyzer

import (
	"reflect"
	"strings"
	"unicode"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/auth"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// walker collects one statement's analysis while the parse tree is walked
// (ast.Visitor).
type walker struct {
	db                          string
	mode                        Mode
	nest                        int // PREPARE texts this statement is inside
	actions, targets, functions map[string]struct{}
	st                          Statement
	// err is set when a nested text (PREPARE … FROM '…') is uncheckable.
	err error
}

func newWalker(db string, m Mode, nest int) *walker {
	return &walker{db: db, mode: m, nest: nest, actions: map[string]struct{}{}, targets: map[string]struct{}{}, functions: map[string]struct{}{}}
}

// classifyStmt returns the analysis of one parsed statement.
func classifyStmt(n ast.StmtNode, db string, m Mode, nest int) (Statement, error) {
	w := newWalker(db, m, nest)
	n.Accept(w)
	return w.statement(), w.err
}

func (w *walker) statement() Statement {
	w.st.Analysis = domain.Analysis{Actions: keys(w.actions), Targets: keys(w.targets), Functions: keys(w.functions)}
	return w.st
}

// Enter implements ast.Visitor: it classifies n and says whether to skip
// its children.
func (w *walker) Enter(n ast.Node) (ast.Node, bool) { return n, !w.classify(n) }

// Leave implements ast.Visitor.
func (w *walker) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// keys returns m's keys sorted (nil for none).
func keys(m map[string]struct{}) []string { return analyzerkit.SortedKeys(m) }

func (w *walker) act(a ...string) {
	for _, s := range a {
		w.actions[s] = struct{}{}
	}
}

// table adds a table (or view, sequence, procedure) name: db.table, with
// the current database for an unqualified name, and the bare name, so a
// rule reads `prod.users`, `prod.*`, `*.users` or `users`.
func (w *walker) table(schema, name string) {
	if name == "" {
		return
	}
	w.targets[name] = struct{}{}
	if schema == "" {
		schema = w.db
	}
	if schema != "" {
		w.targets[schema+"."+name] = struct{}{}
	}
}

// database adds a database name, bare and as db.* (so a rule on `prod.*`
// covers DROP DATABASE prod too).
func (w *walker) database(name string) {
	if name == "" {
		return
	}
	w.targets[name] = struct{}{}
	w.targets[name+".*"] = struct{}{}
}

func (w *walker) users(us ...*auth.UserIdentity) {
	for _, u := range us {
		if u == nil || u.Username == "" {
			continue
		}
		w.targets[u.Username] = struct{}{}
		w.targets[u.Username+"@"+u.Hostname] = struct{}{}
	}
}

// function adds a called function, lower case, bare and db-qualified when
// written so.
func (w *walker) function(schema, name string) {
	if name == "" {
		return
	}
	name = strings.ToLower(name)
	w.functions[name] = struct{}{}
	if schema != "" {
		w.functions[strings.ToLower(schema)+"."+name] = struct{}{}
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
		w.act("SELECT")
		if v.LockInfo != nil {
			switch v.LockInfo.LockType {
			case ast.SelectLockForUpdate, ast.SelectLockForUpdateNoWait, ast.SelectLockForUpdateWaitN, ast.SelectLockForUpdateSkipLocked:
				w.act("SELECT_FOR_UPDATE")
			case ast.SelectLockForShare, ast.SelectLockForShareNoWait, ast.SelectLockForShareSkipLocked:
				w.act("SELECT_FOR_SHARE")
			}
		}
		if v.SelectIntoOpt != nil { // not a child the parser's walk visits
			w.selectInto(v.SelectIntoOpt)
		}
	case *ast.SetOprStmt:
		w.act("SELECT")
	case *ast.SelectIntoOption:
		w.selectInto(v)
	case *ast.InsertStmt:
		if v.IsReplace {
			w.act("REPLACE", "INSERT", "DELETE") // REPLACE deletes the rows it replaces
		} else {
			w.act("INSERT")
		}
		if len(v.OnDuplicate) > 0 {
			w.act("UPDATE")
		}
	case *ast.UpdateStmt:
		w.act("UPDATE")
	case *ast.DeleteStmt:
		w.act("DELETE")
	case *ast.LoadDataStmt:
		w.act("LOAD_DATA", "INSERT")
		if v.FileLocRef == ast.FileLocClient {
			w.act("LOAD_DATA_LOCAL")
			w.st.LoadLocal = true
		}
		if v.OnDuplicate == ast.OnDuplicateKeyHandlingReplace {
			w.act("REPLACE", "DELETE")
		}
	case *ast.CallStmt:
		w.act("CALL")
		w.st.change.unknown = true // a procedure may SET NAMES
	case *ast.TruncateTableStmt:
		w.act("TRUNCATE")
	case *ast.DoStmt:
		w.act("DO")
	case *ast.DropTableStmt:
		if v.IsView {
			w.act("DROP", "DROP_VIEW")
		} else {
			w.act("DROP", "DROP_TABLE")
		}
	case *ast.DropDatabaseStmt:
		w.act("DROP", "DROP_DATABASE")
		w.database(v.Name.O)
	case *ast.DropUserStmt:
		if v.IsDropRole {
			w.act("DROP", "DROP_ROLE")
		} else {
			w.act("DROP", "DROP_USER")
		}
		w.users(v.UserList...)
	case *ast.DropProcedureStmt:
		w.act("DROP", "DROP_PROCEDURE")
	case *ast.CreateDatabaseStmt:
		w.act("CREATE", "CREATE_DATABASE")
		w.database(v.Name.O)
	case *ast.AlterDatabaseStmt:
		w.act("ALTER", "ALTER_DATABASE")
		if v.AlterDefaultDatabase {
			w.database(w.db)
		} else {
			w.database(v.Name.O)
		}
	case *ast.CreateUserStmt:
		if v.IsCreateRole {
			w.act("CREATE", "CREATE_ROLE")
		} else {
			w.act("CREATE", "CREATE_USER")
		}
		for _, s := range v.Specs {
			w.users(s.User)
		}
	case *ast.AlterUserStmt:
		w.act("ALTER", "ALTER_USER")
		for _, s := range v.Specs {
			w.users(s.User)
		}
	case *ast.RenameUserStmt:
		w.act("ALTER", "ALTER_USER", "RENAME")
		for _, u := range v.UserToUsers {
			w.users(u.OldUser, u.NewUser)
		}
	case *ast.ProcedureInfo:
		w.act("CREATE", "CREATE_PROCEDURE")
		if v.ProcedureName != nil {
			w.table(v.ProcedureName.Schema.O, v.ProcedureName.Name.O)
		}
		return false // the body runs on CALL
	case *ast.CreateViewStmt:
		w.act("CREATE", "CREATE_VIEW")
		if v.OrReplace {
			w.act("ALTER", "ALTER_VIEW")
		}
	case *ast.AlterTableStmt:
		w.act("ALTER", "ALTER_TABLE")
		for _, s := range v.Specs {
			if s.Tp == ast.AlterTableRenameTable {
				w.act("RENAME")
			}
		}
	case *ast.RenameTableStmt:
		w.act("ALTER", "ALTER_TABLE", "RENAME")
	case *ast.GrantStmt:
		w.act("GRANT")
		w.grantLevel(v.Level)
		for _, s := range v.Users {
			w.users(s.User)
		}
	case *ast.RevokeStmt:
		w.act("REVOKE")
		w.grantLevel(v.Level)
		for _, s := range v.Users {
			w.users(s.User)
		}
	case *ast.GrantRoleStmt:
		w.act("GRANT", "GRANT_ROLE")
		w.users(v.Users...)
	case *ast.RevokeRoleStmt:
		w.act("REVOKE", "REVOKE_ROLE")
		w.users(v.Users...)
	case *ast.GrantProxyStmt:
		w.act("GRANT", "GRANT_PROXY")
		w.users(v.LocalUser)
		w.users(v.ExternalUsers...)
	case *ast.BeginStmt:
		w.act("BEGIN")
	case *ast.CommitStmt:
		w.act("COMMIT")
	case *ast.RollbackStmt:
		if v.SavepointName != "" {
			w.act("ROLLBACK_TO")
		} else {
			w.act("ROLLBACK")
		}
	case *ast.SavepointStmt:
		w.act("SAVEPOINT")
	case *ast.ReleaseSavepointStmt:
		w.act("RELEASE")
	case *ast.SetStmt:
		w.act("SET")
		w.setChange(v)
		for _, a := range v.Variables {
			if a != nil && a.IsSystem && (a.IsGlobal || a.IsInstance) {
				w.act("SET_GLOBAL")
			}
		}
	case *ast.SetPwdStmt:
		w.act("SET", "SET_PASSWORD")
		w.users(v.User)
	case *ast.SetRoleStmt:
		w.act("SET", "SET_ROLE")
	case *ast.SetDefaultRoleStmt:
		w.act("SET", "SET_DEFAULT_ROLE")
		w.users(v.UserList...)
	case *ast.ShowStmt:
		w.act("SHOW")
	case *ast.ExplainStmt:
		w.act("EXPLAIN")
		return v.Analyze // EXPLAIN ANALYZE runs the statement
	case *ast.ExplainForStmt:
		w.act("EXPLAIN")
	case *ast.PrepareStmt:
		w.act("PREPARE")
		w.prepare(v)
		return false // the text runs on EXECUTE
	case *ast.ExecuteStmt:
		w.act("EXECUTE")
		w.st.Execute = v.Name
		w.st.change.unknown = true // the prepared text may be a SET
	case *ast.DeallocateStmt:
		w.act("DEALLOCATE")
		w.st.Deallocate = v.Name
	case *ast.UseStmt:
		w.act("USE")
		w.st.UseDB = v.DBName
		w.targets[v.DBName] = struct{}{}
	case *ast.KillStmt:
		w.act("KILL")
		if v.Expr == nil {
			w.st.Kill = &Kill{ID: v.ConnectionID, QueryOnly: v.Query}
		}
	case *ast.FlushStmt:
		w.act("FLUSH")
		if v.ReadLock {
			w.act("LOCK")
		}
	case *ast.LockTablesStmt:
		w.act("LOCK")
	case *ast.UnlockTablesStmt:
		w.act("UNLOCK")
	case *ast.AnalyzeTableStmt:
		w.act("ANALYZE")
	case *ast.OptimizeTableStmt:
		w.act("OPTIMIZE")
	case *ast.RepairTableStmt:
		w.act("REPAIR")
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
		w.act("SELECT_INTO", "SELECT_INTO_OUTFILE")
	case ast.SelectIntoDumpfile:
		w.act("SELECT_INTO", "SELECT_INTO_DUMPFILE")
	default:
		w.act("SELECT_INTO")
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
		w.targets["*.*"] = struct{}{}
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
		w.act(Unknown)
		p.Analysis = domain.Analysis{Actions: []string{Unknown}}
		return
	}
	if w.nest >= maxNesting {
		w.err = errNested
		return
	}
	r := analyze(v.SQLText, w.db, w.mode, w.nest+1)
	if r.Err != nil {
		w.act(Unknown)
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

// add merges an analysis into the walker's.
func (w *walker) add(a domain.Analysis) {
	w.act(a.Actions...)
	for _, t := range a.Targets {
		w.targets[t] = struct{}{}
	}
	for _, f := range a.Functions {
		w.functions[f] = struct{}{}
	}
}

// generic names any other statement node after its type: CreateXStmt →
// CREATE, CREATE_X; AlterXStmt → ALTER, ALTER_X; DropXStmt → DROP, DROP_X;
// any other XStmt → X (CamelCase to SNAKE_CASE).
func (w *walker) generic(name string) {
	if a := genericActions(name); len(a) > 0 {
		w.act(a...)
	}
}

func genericActions(name string) []string {
	words := splitCamel(strings.TrimSuffix(name, "Stmt"))
	if len(words) == 0 {
		return nil
	}
	full := strings.Join(words, "_")
	switch words[0] {
	case "CREATE", "ALTER", "DROP":
		return []string{words[0], full}
	}
	return []string{full}
}

func splitCamel(s string) []string {
	var words []string
	start := 0
	for i := 1; i < len(s); i++ {
		if unicode.IsUpper(rune(s[i])) && !unicode.IsUpper(rune(s[i-1])) {
			words = append(words, strings.ToUpper(s[start:i]))
			start = i
		}
	}
	if s != "" {
		words = append(words, strings.ToUpper(s[start:]))
	}
	return words
}
