package analyzer

import (
	"strings"
	"unicode"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// classify records what node n says about the statement and reports whether
// its children are walked too.
func (w *walker) classify(n proto.Message) bool {
	switch v := n.(type) {
	case *pg.RangeVar:
		w.relation(v.Catalogname, v.Schemaname, v.Relname)
	case *pg.FuncCall:
		w.function(strs(v.Funcname))
	case *pg.SelectStmt:
		w.act("SELECT")
		if v.IntoClause != nil {
			w.act("SELECT_INTO", "CREATE", "CREATE_TABLE")
		}
	case *pg.InsertStmt:
		w.act("INSERT")
	case *pg.OnConflictClause:
		if v.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
			w.act("UPDATE")
		}
	case *pg.UpdateStmt:
		w.act("UPDATE")
	case *pg.DeleteStmt:
		w.act("DELETE")
	case *pg.MergeStmt:
		w.act("MERGE")
	case *pg.MergeWhenClause:
		switch v.CommandType {
		case pg.CmdType_CMD_DELETE:
			w.act("DELETE")
		case pg.CmdType_CMD_UPDATE:
			w.act("UPDATE")
		case pg.CmdType_CMD_INSERT:
			w.act("INSERT")
		}
	case *pg.TruncateStmt:
		w.act("TRUNCATE")
	case *pg.DoStmt:
		w.act("DO")
	case *pg.CallStmt:
		w.act("CALL")
	case *pg.CopyStmt:
		w.act("COPY", map[bool]string{true: "COPY_FROM", false: "COPY_TO"}[v.IsFrom])
		if v.IsProgram {
			w.act("COPY_PROGRAM")
		}
	case *pg.ExplainStmt:
		w.act("EXPLAIN")
		if !explainAnalyze(v) {
			return false // the statement is planned, not run
		}
	case *pg.PrepareStmt:
		w.act("PREPARE")
		inner := newWalker()
		inner.node(v.Query.ProtoReflect())
		w.st.Prepare = &Prepared{Name: v.Name, Analysis: inner.statement().Analysis}
		return false // it runs on EXECUTE
	case *pg.ExecuteStmt:
		w.act("EXECUTE")
		w.st.Execute = v.Name
	case *pg.DeallocateStmt:
		w.act("DEALLOCATE")
		w.st.Deallocate, w.st.DeallocateAll = v.Name, v.Isall
	case *pg.DropStmt:
		w.act("DROP", "DROP_"+objectName(v.RemoveType.String()))
		w.dropObjects(v.Objects)
	case *pg.DropdbStmt:
		w.act("DROP", "DROP_DATABASE")
		w.targets[v.Dbname] = struct{}{}
	case *pg.CreatedbStmt:
		w.act("CREATE", "CREATE_DATABASE")
		w.targets[v.Dbname] = struct{}{}
	case *pg.CreateTableAsStmt:
		w.act("CREATE", "CREATE_"+objectName(v.Objtype.String()))
		if v.IsSelectInto {
			w.act("SELECT_INTO")
		}
	case *pg.CreateFunctionStmt:
		kind := "CREATE_FUNCTION"
		if v.IsProcedure {
			kind = "CREATE_PROCEDURE"
		}
		w.act("CREATE", kind)
		w.targets[strings.Join(strs(v.Funcname), ".")] = struct{}{}
	case *pg.DefineStmt:
		w.act("CREATE", "CREATE_"+objectName(v.Kind.String()))
	case *pg.AlterTableStmt:
		w.act("ALTER", "ALTER_"+objectName(v.Objtype.String()))
	case *pg.RenameStmt:
		w.act("ALTER", "ALTER_"+objectName(v.RenameType.String()), "RENAME")
	case *pg.AlterObjectSchemaStmt:
		w.act("ALTER", "ALTER_"+objectName(v.ObjectType.String()))
	case *pg.AlterOwnerStmt:
		w.act("ALTER", "ALTER_"+objectName(v.ObjectType.String()))
	case *pg.GrantStmt:
		w.act(map[bool]string{true: "GRANT", false: "REVOKE"}[v.IsGrant])
	case *pg.GrantRoleStmt:
		g := map[bool]string{true: "GRANT", false: "REVOKE"}[v.IsGrant]
		w.act(g, g+"_ROLE")
	case *pg.TransactionStmt:
		w.act(transactionAction(v.Kind))
	case *pg.VariableSetStmt:
		if v.Kind == pg.VariableSetKind_VAR_RESET || v.Kind == pg.VariableSetKind_VAR_RESET_ALL {
			w.act("RESET")
		} else {
			w.act("SET")
		}
	case *pg.VariableShowStmt:
		w.act("SHOW")
	case *pg.VacuumStmt:
		w.act(map[bool]string{true: "VACUUM", false: "ANALYZE"}[v.IsVacuumcmd])
	case *pg.FetchStmt:
		w.act(map[bool]string{true: "MOVE", false: "FETCH"}[v.Ismove])
	case *pg.DeclareCursorStmt:
		w.act("DECLARE_CURSOR")
	case *pg.CreateSeqStmt:
		w.act("CREATE", "CREATE_SEQUENCE")
	case *pg.AlterSeqStmt:
		w.act("ALTER", "ALTER_SEQUENCE")
	case *pg.CreateTrigStmt:
		w.act("CREATE", "CREATE_TRIGGER")
	case *pg.IndexStmt:
		w.act("CREATE", "CREATE_INDEX")
	case *pg.ViewStmt:
		w.act("CREATE", "CREATE_VIEW")
	case *pg.CreateStmt:
		w.act("CREATE", "CREATE_TABLE")
	default:
		w.generic(string(n.ProtoReflect().Descriptor().Name()))
	}
	return true
}

// generic names any other statement node after its parser node:
// CreateXStmt → CREATE, CREATE_X; AlterXStmt → ALTER, ALTER_X; DropXStmt →
// DROP, DROP_X; any other XStmt → X (CamelCase to SNAKE_CASE).
func (w *walker) generic(name string) {
	if !strings.HasSuffix(name, "Stmt") || name == "RawStmt" {
		return
	}
	words := splitCamel(strings.TrimSuffix(name, "Stmt"))
	if len(words) == 0 {
		return
	}
	full := strings.Join(words, "_")
	full = strings.NewReplacer("CHECK_POINT", "CHECKPOINT", "TABLE_SPACE", "TABLESPACE",
		"MAT_VIEW", "MATERIALIZED_VIEW").Replace(full)
	switch words[0] {
	case "CREATE", "ALTER", "DROP":
		w.act(words[0], full)
	default:
		w.act(full)
	}
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

// objectName turns a parser ObjectType name (OBJECT_TABLE) into the word of
// an action (TABLE); OBJECT_MATVIEW reads MATERIALIZED_VIEW.
func objectName(enum string) string {
	s := strings.TrimPrefix(enum, "OBJECT_")
	if s == "MATVIEW" {
		return "MATERIALIZED_VIEW"
	}
	return s
}

func transactionAction(k pg.TransactionStmtKind) string {
	switch k {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		return "BEGIN"
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		return "COMMIT"
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		return "ROLLBACK"
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		return "SAVEPOINT"
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		return "RELEASE"
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return "ROLLBACK_TO"
	case pg.TransactionStmtKind_TRANS_STMT_PREPARE:
		return "PREPARE_TRANSACTION"
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT_PREPARED:
		return "COMMIT_PREPARED"
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_PREPARED:
		return "ROLLBACK_PREPARED"
	}
	return "TRANSACTION"
}

// explainAnalyze reports whether EXPLAIN runs its statement (ANALYZE on).
// PostgreSQL takes the last ANALYZE option given, so this does too.
func explainAnalyze(v *pg.ExplainStmt) bool {
	on := false
	for _, o := range v.Options {
		d := o.GetDefElem()
		if d == nil || d.Defname != "analyze" {
			continue
		}
		on = true
		if d.Arg != nil {
			switch strings.ToLower(argString(d.Arg)) {
			case "false", "off", "0", "no":
				on = false
			}
		}
	}
	return on
}

func argString(n *pg.Node) string {
	if s := n.GetString_(); s != nil {
		return s.Sval
	}
	if b := n.GetBoolean(); b != nil {
		if b.Boolval {
			return "true"
		}
		return "false"
	}
	if i := n.GetInteger(); i != nil {
		if i.Ival == 0 {
			return "0"
		}
		return "1"
	}
	return "true"
}

// dropObjects adds the names a DROP lists: relations and schemas as dotted
// names, functions by name.
func (w *walker) dropObjects(objs []*pg.Node) {
	for _, o := range objs {
		switch {
		case o.GetList() != nil:
			w.qualified(strs(o.GetList().Items))
		case o.GetString_() != nil:
			w.targets[o.GetString_().Sval] = struct{}{}
		case o.GetObjectWithArgs() != nil:
			parts := strs(o.GetObjectWithArgs().Objname)
			w.targets[strings.Join(parts, ".")] = struct{}{}
			if len(parts) > 0 {
				w.targets[parts[len(parts)-1]] = struct{}{}
			}
		case o.GetTypeName() != nil:
			w.qualified(strs(o.GetTypeName().Names))
		}
	}
}

// strs returns the String values of a parser name list.
func strs(nodes []*pg.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}
