package analyzer

import (
	"strings"

	"github.com/antlr4-go/antlr/v4"
	"github.com/bytebase/parser/tsql"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/analyzerkit"
)

type sqlClausesCtx = tsql.Sql_clausesContext

// walker collects one top-level statement's analysis while its parse tree
// is walked.
type walker struct {
	p    *parsed
	dbs  []string // the databases unqualified names may read in
	nest int      // dynamic SQL levels this statement is inside

	analyzerkit.Found
	st Statement
	// nestedUse is the database of a USE inside IF or BEGIN … END: the
	// statements after it may read in either database.
	nestedUse string
	// err is set when dynamic SQL inside is uncheckable.
	err error
	// effects are the effects found beside those the actions carry
	// (effects.go): UNBOUNDED, a procedure's, a rowset function's.
	effects map[string]struct{}
}

func newWalker(p *parsed, dbs []string, nest int) *walker {
	return &walker{p: p, dbs: dbs, nest: nest, Found: analyzerkit.NewFound(), effects: map[string]struct{}{}}
}

// statement returns what the walk found: the actions, targets and
// functions, and the effects of those actions and of the walk.
func (w *walker) statement() Statement {
	w.st.Analysis = w.Analysis()
	w.st.Analysis.Effects = effectsOf(w.st.Analysis.Actions, w.effects)
	return w.st
}

// effect adds effects the statement's actions do not carry by themselves.
func (w *walker) effect(effects ...string) {
	for _, e := range effects {
		w.effects[e] = struct{}{}
	}
}

// add merges a nested statement's analysis (dynamic SQL) in, its effects
// with it.
func (w *walker) add(a domain.Analysis) {
	w.Add(a)
	w.effect(a.Effects...)
}

// keys returns m's keys sorted (nil for none).
func keys(m map[string]struct{}) []string { return analyzerkit.SortedKeys(m) }

// top walks a top-level statement and records what the session acts on.
func (w *walker) top(s antlr.ParserRuleContext) {
	inner := s
	if s.GetChildCount() == 1 { // dml_clause → select…, another_statement → use…
		if c, ok := s.GetChild(0).(antlr.ParserRuleContext); ok {
			inner = c
		}
	}
	switch v := inner.(type) {
	case *tsql.Use_statementContext:
		w.st.UseDB = name(v.Id_())
	case *tsql.Transaction_statementContext:
		w.st.Transaction = transactionKind(v)
	case *tsql.Set_statementContext:
		if sp := v.Set_special(); sp != nil {
			w.st.XactAbort = w.xactAbort(sp)
		}
	}
	w.walk(s)
}

// walk visits the tree under n without recursion (a left-deep expression
// nests as deep as it is long).
func (w *walker) walk(n antlr.Tree) {
	stack := []antlr.Tree{n}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ctx, ok := t.(antlr.ParserRuleContext)
		if !ok {
			continue
		}
		kids := w.classify(ctx)
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
}

// children returns the rule children of ctx.
func children(ctx antlr.ParserRuleContext) []antlr.Tree {
	return ctx.GetChildren()
}

// classify records what ctx says about the statement and returns the
// children to visit.
func (w *walker) classify(ctx antlr.ParserRuleContext) []antlr.Tree {
	rule := ctx.GetRuleIndex()
	if acts, ok := statementRules()[rule]; ok {
		w.Act(acts...)
		if isCreateRule(rule) {
			w.createOrAlter(ctx)
		}
	}
	switch rule {
	case tsql.TSqlParserRULE_full_column_name, tsql.TSqlParserRULE_asterisk:
		return nil // t.col, t.*: t is an alias or a table named elsewhere
	case tsql.TSqlParserRULE_full_table_name, tsql.TSqlParserRULE_table_name, tsql.TSqlParserRULE_simple_name,
		tsql.TSqlParserRULE_entity_name:
		w.object(w.parts(ctx))
		return nil
	case tsql.TSqlParserRULE_func_proc_name_schema, tsql.TSqlParserRULE_func_proc_name_database_schema,
		tsql.TSqlParserRULE_func_proc_name_server_database_schema:
		if parent, ok := ctx.GetParent().(antlr.ParserRuleContext); ok && parent.GetRuleIndex() == tsql.TSqlParserRULE_scalar_function_name {
			w.function(w.parts(ctx))
		} else {
			w.object(w.parts(ctx))
		}
		return nil
	case tsql.TSqlParserRULE_drop_backward_compatible_index: // [owner.]table.index
		var ids []string
		for _, c := range ctx.GetChildren() {
			if id, ok := c.(*tsql.Id_Context); ok {
				ids = append(ids, name(id))
			}
		}
		if len(ids) >= 2 {
			w.object(ids[:len(ids)-1])
		}
		return nil
	case tsql.TSqlParserRULE_query_specification:
		w.Act("SELECT")
		if hasToken(ctx, tsql.TSqlParserINTO) {
			w.Act("SELECT_INTO", "CREATE", "CREATE_TABLE")
		}
	case tsql.TSqlParserRULE_merge_matched:
		if hasToken(ctx, tsql.TSqlParserDELETE) {
			w.Act("DELETE")
		} else {
			w.Act("UPDATE")
		}
	case tsql.TSqlParserRULE_merge_not_matched:
		w.Act("INSERT")
	case tsql.TSqlParserRULE_create_synonym:
		// A synonym of a procedure that runs a text (sp_executesql …) would
		// make EXEC synonym N'DELETE …' read as a plain EXEC.
		var last *tsql.Id_Context
		for _, c := range ctx.GetChildren() {
			if id, ok := c.(*tsql.Id_Context); ok {
				last = id
			}
		}
		if last != nil { // one token may hold a dotted name (master.sys.sp_executesql)
			parts, err := splitName(last.GetText())
			if err != nil {
				w.Act(domain.ActionUnknown)
			} else if runsText(parts[len(parts)-1]) {
				w.Act(domain.ActionUnknown)
			}
		}
	case tsql.TSqlParserRULE_openquery, tsql.TSqlParserRULE_opendatasource, tsql.TSqlParserRULE_rowset_function:
		w.Functions[strings.ToLower(ctx.GetStart().GetText())] = struct{}{}
		// A file (OPENROWSET(BULK …)), or a provider that may read one
		// (Excel, text files), on the server's host: docs/rules.md.
		w.effect(domain.EffectFileAccess)
		// The pass-through query text runs as it is (on the server the
		// connection names, which may be this one): its statements are the
		// query's, as dynamic SQL's are.
		var q antlr.Token
		switch v := ctx.(type) {
		case *tsql.Rowset_functionContext:
			q = v.GetSql()
		case *tsql.OpenqueryContext:
			q = v.GetQuery()
		}
		if q != nil {
			if text, ok := sqlText(q.GetText()); ok {
				w.dynamic(text)
			} else {
				w.Act(domain.ActionUnknown)
			}
		}
	case tsql.TSqlParserRULE_update_statement, tsql.TSqlParserRULE_delete_statement:
		if w.unboundedWrite(ctx) {
			w.effect(domain.EffectUnbounded)
		}
	case tsql.TSqlParserRULE_merge_statement:
		if w.unboundedMerge(ctx) {
			w.effect(domain.EffectUnbounded)
		}
	case tsql.TSqlParserRULE_execute_body, tsql.TSqlParserRULE_execute_body_batch:
		return w.execute(ctx)
	case tsql.TSqlParserRULE_execute_clause:
		w.Act("EXECUTE_AS")
	case tsql.TSqlParserRULE_security_statement:
		switch ctx.GetStart().GetTokenType() {
		case tsql.TSqlParserGRANT:
			w.Act("GRANT")
		case tsql.TSqlParserREVERT:
			w.Act("REVERT")
		}
	case tsql.TSqlParserRULE_transaction_statement:
		w.Act(transactionKind(ctx))
	case tsql.TSqlParserRULE_use_statement:
		if v, ok := ctx.(*tsql.Use_statementContext); ok {
			db := name(v.Id_())
			w.Targets[db] = struct{}{}
			if w.st.UseDB == "" {
				w.nestedUse = db
			}
		}
		return nil
	case tsql.TSqlParserRULE_set_special:
		if w.spanHas(ctx, tsql.TSqlParserXACT_ABORT) {
			w.Act("SET_XACT_ABORT")
		}
	case tsql.TSqlParserRULE_create_database, tsql.TSqlParserRULE_alter_database:
		if id := firstID(ctx); id != "" {
			w.database(id)
		}
	case tsql.TSqlParserRULE_drop_database:
		for _, c := range ctx.GetChildren() {
			if id, ok := c.(*tsql.Id_Context); ok {
				w.database(name(id))
			}
		}
		return nil
	case tsql.TSqlParserRULE_create_schema, tsql.TSqlParserRULE_drop_schema:
		if id := firstID(ctx); id != "" {
			w.Targets[id] = struct{}{}
			for _, db := range w.dbs {
				if db != "" {
					w.Targets[db+"."+id] = struct{}{}
				}
			}
		}
		if rule == tsql.TSqlParserRULE_create_schema {
			for _, c := range ctx.GetChildren() {
				if t, ok := c.(antlr.TerminalNode); ok {
					switch t.GetSymbol().GetTokenType() {
					case tsql.TSqlParserGRANT:
						w.Act("GRANT")
					case tsql.TSqlParserDENY:
						w.Act("DENY")
					case tsql.TSqlParserREVOKE:
						w.Act("REVOKE")
					}
				}
			}
		}
	case tsql.TSqlParserRULE_drop_user, tsql.TSqlParserRULE_drop_login, tsql.TSqlParserRULE_create_user,
		tsql.TSqlParserRULE_create_user_azure_sql_dw, tsql.TSqlParserRULE_alter_user, tsql.TSqlParserRULE_alter_user_azure_sql,
		tsql.TSqlParserRULE_create_login_sql_server, tsql.TSqlParserRULE_create_login_pdw, tsql.TSqlParserRULE_create_login_azure_sql,
		tsql.TSqlParserRULE_alter_login_sql_server, tsql.TSqlParserRULE_alter_login_azure_sql, tsql.TSqlParserRULE_alter_login_azure_sql_dw_and_pdw,
		tsql.TSqlParserRULE_drop_db_role, tsql.TSqlParserRULE_create_db_role, tsql.TSqlParserRULE_alter_db_role,
		tsql.TSqlParserRULE_create_server_role, tsql.TSqlParserRULE_alter_server_role, tsql.TSqlParserRULE_drop_server_role:
		if id := firstID(ctx); id != "" {
			w.Targets[id] = struct{}{}
		}
	case tsql.TSqlParserRULE_create_or_alter_procedure, tsql.TSqlParserRULE_create_or_alter_function,
		tsql.TSqlParserRULE_create_or_alter_dml_trigger, tsql.TSqlParserRULE_create_or_alter_ddl_trigger:
		// The body runs on EXEC (or on the trigger's event): only the names.
		var keep []antlr.Tree
		for _, c := range ctx.GetChildren() {
			if r, ok := c.(antlr.ParserRuleContext); ok {
				switch r.GetRuleIndex() {
				case tsql.TSqlParserRULE_func_proc_name_schema, tsql.TSqlParserRULE_simple_name, tsql.TSqlParserRULE_table_name:
					keep = append(keep, c)
					// A procedure of the name of one whose text argument the
					// analyzer reads as what it runs (sp_executesql …) would
					// run its own body under that reading.
					if parts, err := splitName(r.GetText()); err != nil || runsText(parts[len(parts)-1]) {
						w.Act(domain.ActionUnknown)
					}
				}
			}
		}
		return keep
	}
	return children(ctx)
}

// createOrAlter adds ALTER and ALTER_<OBJECT> to a create_* rule that reads
// CREATE OR ALTER, CREATE OR REPLACE or ALTER (views, procedures,
// functions, triggers), and drops CREATE for a bare ALTER.
func (w *walker) createOrAlter(ctx antlr.ParserRuleContext) {
	first := ctx.GetStart()
	orAlter := false
	if first.GetTokenType() == tsql.TSqlParserCREATE {
		if k := first.GetTokenIndex() + 1; k < w.p.toks.Size() {
			next := nextDefault(w.p.toks, k)
			orAlter = next != nil && next.GetTokenType() == tsql.TSqlParserOR
		}
		if !orAlter {
			return
		}
	}
	for _, a := range statementRules()[ctx.GetRuleIndex()] {
		if strings.HasPrefix(a, "CREATE") {
			alt := "ALTER" + strings.TrimPrefix(a, "CREATE")
			w.Act(alt)
			if !orAlter {
				delete(w.Actions, a)
			}
		}
	}
}

func nextDefault(ts *antlr.CommonTokenStream, k int) antlr.Token {
	for ; k < ts.Size(); k++ {
		if t := ts.Get(k); t.GetChannel() == antlr.TokenDefaultChannel {
			return t
		}
	}
	return nil
}

func hasToken(ctx antlr.ParserRuleContext, tt int) bool {
	for _, c := range ctx.GetChildren() {
		if t, ok := c.(antlr.TerminalNode); ok && t.GetSymbol().GetTokenType() == tt {
			return true
		}
	}
	return false
}

// firstID returns the name of ctx's first id_ child, lower case.
func firstID(ctx antlr.ParserRuleContext) string {
	for _, c := range ctx.GetChildren() {
		if id, ok := c.(*tsql.Id_Context); ok {
			return name(id)
		}
	}
	return ""
}

// name returns an identifier as SQL Server compares it under its default,
// case-insensitive collation: unquoted, lower case.
func name(id tsql.IId_Context) string {
	if id == nil || id.GetStart() == nil {
		return ""
	}
	return strings.ToLower(unquoteName(id.GetStart().GetText()))
}

// parts returns the dot-separated parts of a multi-part name (server.db.
// schema.object), unquoted and lower case; an omitted part (db..t) is "".
func (w *walker) parts(ctx antlr.ParserRuleContext) []string {
	var b strings.Builder
	for k := ctx.GetStart().GetTokenIndex(); k <= ctx.GetStop().GetTokenIndex() && k < w.p.toks.Size(); k++ {
		if t := w.p.toks.Get(k); t.GetChannel() == antlr.TokenDefaultChannel {
			b.WriteString(t.GetText())
		}
	}
	return splitParts(b.String())
}

// splitParts splits a multi-part name at the dots outside [ ] and " ",
// each part unquoted and lower case.
func splitParts(s string) []string {
	out := []string{}
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '"':
			end := byte(']')
			if s[i] == '"' {
				end = '"'
			}
			j, _ := quoted(s, i, end)
			i = j - 1
		case '.':
			out = append(out, strings.ToLower(unquoteName(s[start:i])))
			start = i + 1
		}
	}
	return append(out, strings.ToLower(unquoteName(s[start:])))
}

// object adds a table, view, procedure, function or other schema object
// named by parts: the bare name, schema.name (schema dbo when not written)
// and db.schema.name (the current database when not written; each
// database the batch may be in). A temporary table (#t) is its name only;
// a table variable names nothing.
func (w *walker) object(parts []string) {
	n := len(parts)
	obj := parts[n-1]
	if obj == "" || strings.HasPrefix(obj, "@") {
		return
	}
	w.Targets[obj] = struct{}{}
	if strings.HasPrefix(obj, "#") {
		return
	}
	schema := "dbo"
	if n >= 2 && parts[n-2] != "" {
		schema = parts[n-2]
	}
	w.Targets[schema+"."+obj] = struct{}{}
	if n >= 3 && parts[n-3] != "" {
		w.Targets[parts[n-3]+"."+schema+"."+obj] = struct{}{}
		if n >= 4 && parts[n-4] != "" {
			w.Targets[parts[n-4]+"."+parts[n-3]+"."+schema+"."+obj] = struct{}{}
		}
		return
	}
	for _, db := range w.dbs {
		if db != "" {
			w.Targets[db+"."+schema+"."+obj] = struct{}{}
		}
	}
}

// function adds a called function: its name, and as written when qualified.
func (w *walker) function(parts []string) {
	n := len(parts)
	if parts[n-1] == "" {
		return
	}
	w.Functions[parts[n-1]] = struct{}{}
	if n > 1 {
		w.Functions[strings.Join(parts, ".")] = struct{}{}
	}
}

// database adds a database name, bare and as db.* (a rule on prod.* covers
// DROP DATABASE prod too).
func (w *walker) database(db string) {
	if db == "" {
		return
	}
	w.Targets[db] = struct{}{}
	w.Targets[db+".*"] = struct{}{}
}

// transactionKind names a transaction_statement.
func transactionKind(ctx antlr.ParserRuleContext) string {
	switch ctx.GetStart().GetTokenType() {
	case tsql.TSqlParserBEGIN:
		return "BEGIN"
	case tsql.TSqlParserCOMMIT:
		return "COMMIT"
	case tsql.TSqlParserROLLBACK:
		return "ROLLBACK"
	case tsql.TSqlParserSAVE:
		return "SAVEPOINT"
	}
	return "TRANSACTION"
}

// xactAbort reads SET XACT_ABORT ON|OFF, also in a list (SET NOCOUNT,
// XACT_ABORT ON); nil for any other SET.
func (w *walker) xactAbort(sp antlr.ParserRuleContext) *bool {
	if !w.spanHas(sp, tsql.TSqlParserXACT_ABORT) {
		return nil
	}
	on := w.spanHas(sp, tsql.TSqlParserON)
	return &on
}

// spanHas reports whether token type tt is among ctx's tokens.
func (w *walker) spanHas(ctx antlr.ParserRuleContext, tt int) bool {
	for k := ctx.GetStart().GetTokenIndex(); k <= ctx.GetStop().GetTokenIndex() && k < w.p.toks.Size(); k++ {
		if w.p.toks.Get(k).GetTokenType() == tt {
			return true
		}
	}
	return false
}
