package analyzer

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// classify records what node n says about the statement and reports whether
// its children are walked too.
func (w *walker) classify(n proto.Message) bool {
	w.effect(n)
	switch v := n.(type) {
	case *pg.RangeVar:
		w.relation(v.Catalogname, v.Schemaname, v.Relname)
	case *pg.FuncCall:
		w.function(strs(v.Funcname))
	case *pg.SelectStmt:
		w.Act("SELECT")
		if v.IntoClause != nil {
			w.Act("SELECT_INTO", "CREATE", "CREATE_TABLE")
		}
	case *pg.InsertStmt:
		w.Act("INSERT")
	case *pg.OnConflictClause:
		if v.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
			w.Act("UPDATE")
		}
	case *pg.UpdateStmt:
		w.Act("UPDATE")
	case *pg.DeleteStmt:
		w.Act("DELETE")
	case *pg.MergeStmt:
		w.Act("MERGE")
	case *pg.MergeWhenClause:
		switch v.CommandType {
		case pg.CmdType_CMD_DELETE:
			w.Act("DELETE")
		case pg.CmdType_CMD_UPDATE:
			w.Act("UPDATE")
		case pg.CmdType_CMD_INSERT:
			w.Act("INSERT")
		}
	case *pg.TruncateStmt:
		w.Act("TRUNCATE")
	case *pg.DoStmt:
		w.Act("DO")
	case *pg.CallStmt:
		w.Act("CALL")
	case *pg.CopyStmt:
		w.Act("COPY", map[bool]string{true: "COPY_FROM", false: "COPY_TO"}[v.IsFrom])
		if v.IsProgram {
			w.Act("COPY_PROGRAM")
		}
		if !v.IsFrom {
			for _, o := range v.Options {
				switch o.GetDefElem().GetDefname() {
				case "delimiter", "quote", "escape":
					w.st.CopyQuoting = true
				}
			}
		}
	case *pg.ExplainStmt:
		w.Act("EXPLAIN")
		if !explainAnalyze(v) {
			return false // the statement is planned, not run
		}
	case *pg.PrepareStmt:
		w.Act("PREPARE")
		inner := newWalker()
		inner.node(v.Query.ProtoReflect())
		w.st.Prepare = &Prepared{Name: v.Name, Analysis: inner.statement().Analysis}
		w.st.constants = w.st.constants || inner.st.constants
		return false // it runs on EXECUTE
	case *pg.ExecuteStmt:
		w.Act("EXECUTE")
		w.st.Execute = v.Name
	case *pg.DeallocateStmt:
		w.Act("DEALLOCATE")
		w.st.Deallocate, w.st.DeallocateAll = v.Name, v.Isall
	case *pg.DropStmt:
		w.Act("DROP", "DROP_"+objectName(v.RemoveType.String()))
		w.dropObjects(v.Objects)
	case *pg.DropdbStmt:
		w.Act("DROP", "DROP_DATABASE")
		w.Targets[v.Dbname] = struct{}{}
	case *pg.CreatedbStmt:
		w.Act("CREATE", "CREATE_DATABASE")
		w.Targets[v.Dbname] = struct{}{}
	case *pg.CreateTableAsStmt:
		w.Act("CREATE", "CREATE_"+objectName(v.Objtype.String()))
		if v.IsSelectInto {
			w.Act("SELECT_INTO")
		}
	case *pg.CreateFunctionStmt:
		kind := "CREATE_FUNCTION"
		if v.IsProcedure {
			kind = "CREATE_PROCEDURE"
		}
		w.Act("CREATE", kind)
		w.Targets[strings.Join(strs(v.Funcname), ".")] = struct{}{}
	case *pg.DefineStmt:
		w.Act("CREATE", "CREATE_"+objectName(v.Kind.String()))
	case *pg.AlterTableStmt:
		w.Act("ALTER", "ALTER_"+objectName(v.Objtype.String()))
	case *pg.RenameStmt:
		w.Act("ALTER", "ALTER_"+objectName(v.RenameType.String()), "RENAME")
	case *pg.AlterObjectSchemaStmt:
		w.Act("ALTER", "ALTER_"+objectName(v.ObjectType.String()))
	case *pg.AlterOwnerStmt:
		w.Act("ALTER", "ALTER_"+objectName(v.ObjectType.String()))
	case *pg.GrantStmt:
		w.Act(map[bool]string{true: "GRANT", false: "REVOKE"}[v.IsGrant])
	case *pg.GrantRoleStmt:
		g := map[bool]string{true: "GRANT", false: "REVOKE"}[v.IsGrant]
		w.Act(g, g+"_ROLE")
	case *pg.TransactionStmt:
		w.Act(transactionAction(v.Kind))
	case *pg.VariableSetStmt:
		if v.Kind == pg.VariableSetKind_VAR_RESET || v.Kind == pg.VariableSetKind_VAR_RESET_ALL {
			w.Act("RESET")
		} else {
			w.Act("SET")
		}
	case *pg.VariableShowStmt:
		w.Act("SHOW")
	case *pg.VacuumStmt:
		w.Act(map[bool]string{true: "VACUUM", false: "ANALYZE"}[v.IsVacuumcmd])
	case *pg.FetchStmt:
		w.Act(map[bool]string{true: "MOVE", false: "FETCH"}[v.Ismove])
		w.st.Fetch = v.Portalname
	case *pg.DeclareCursorStmt:
		w.Act("DECLARE_CURSOR")
		w.st.Declare = v.Portalname
	case *pg.CreateSeqStmt:
		w.Act("CREATE", "CREATE_SEQUENCE")
	case *pg.AlterSeqStmt:
		w.Act("ALTER", "ALTER_SEQUENCE")
	case *pg.CreateTrigStmt:
		w.Act("CREATE", "CREATE_TRIGGER")
	case *pg.IndexStmt:
		w.Act("CREATE", "CREATE_INDEX")
	case *pg.ViewStmt:
		w.Act("CREATE", "CREATE_VIEW")
	case *pg.CreateStmt:
		w.Act("CREATE", "CREATE_TABLE")
	default:
		w.generic(string(n.ProtoReflect().Descriptor().Name()))
	}
	return true
}

// generic names any other statement node after its parser node
// (analyzerkit.NodeActions): CreateXStmt → CREATE, CREATE_X; AlterXStmt →
// ALTER, ALTER_X; DropXStmt → DROP, DROP_X; any other XStmt → X.
func (w *walker) generic(name string) {
	if !strings.HasSuffix(name, "Stmt") || name == "RawStmt" {
		return
	}
	w.Act(analyzerkit.NodeActions(name, pgNodeWords)...)
}

// pgNodeWords spells as PostgreSQL's own commands do the words that
// pg_query's node names split differently (CheckPointStmt is CHECKPOINT).
var pgNodeWords = strings.NewReplacer("CHECK_POINT", "CHECKPOINT", "TABLE_SPACE", "TABLESPACE",
	"MAT_VIEW", "MATERIALIZED_VIEW")

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
			w.Targets[o.GetString_().Sval] = struct{}{}
		case o.GetObjectWithArgs() != nil:
			parts := strs(o.GetObjectWithArgs().Objname)
			w.Targets[strings.Join(parts, ".")] = struct{}{}
			if len(parts) > 0 {
				w.Targets[parts[len(parts)-1]] = struct{}{}
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
