package analyzer

import (
	"strings"

	"github.com/antlr4-go/antlr/v4"
	"github.com/bytebase/parser/tsql"
	"github.com/hoophq/sidecar/domain"
)

// dynamicProcs are the system procedures that run a statement text given as
// an argument, with the argument's position (0-based; SQL Server binds it
// by position whatever its name, dynamicArg).
var dynamicProcs = map[string]int{
	"sp_executesql": 0,
	"sp_prepare":    2,
	"sp_prepexec":   2,
	"sp_sqlexec":    0, // undocumented, still in master: EXEC sp_sqlexec 'DROP TABLE t'
}

// runsText reports whether the procedure named p (its last name part,
// lower case) runs a text it is given: one this analyzer reads as what
// runs (dynamicProcs) or one it cannot (opaqueProcs).
func runsText(p string) bool {
	_, ok := dynamicProcs[p]
	return ok || opaqueProcs[p]
}

// opaqueProcs run a statement text this analyzer does not read (a prepared
// handle, a cursor's text), or a command given as text that can do what any
// statement does (sp_MSforeachtable 'DROP TABLE ?', an operating system
// command line, an R or Python script, Database Mail's @query, a SQL Agent
// job step's @command, an OLE Automation method): Unknown.
var opaqueProcs = map[string]bool{
	"sp_execute": true, "sp_cursoropen": true, "sp_cursorprepare": true, "sp_cursorprepexec": true,
	"sp_cursorexecute": true, "sp_prepexecrpc": true,
	"sp_msforeachtable": true, "sp_msforeachdb": true, "sp_msforeach_worker": true,
	"xp_cmdshell": true, "sp_execute_external_script": true,
	"sp_send_dbmail": true, "sp_add_jobstep": true, "sp_update_jobstep": true,
	"sp_oacreate": true, "sp_oamethod": true, "sp_oasetproperty": true,
}

// execute classifies EXEC[UTE] …: a procedure call is EXEC with the
// procedure as target; EXEC ('…' + N'…') and sp_executesql N'…' are the
// statements of their literal text; EXEC (@sql), EXEC @proc and
// sp_executesql @sql are Unknown. It returns the children to walk.
func (w *walker) execute(ctx antlr.ParserRuleContext) []antlr.Tree {
	var proc antlr.ParserRuleContext
	var strs []*tsql.Execute_var_stringContext
	var args []*tsql.Execute_statement_argContext
	for _, c := range ctx.GetChildren() {
		switch v := c.(type) {
		case *tsql.Func_proc_name_server_database_schemaContext:
			proc = v
		case *tsql.Execute_var_stringContext:
			strs = append(strs, v)
		case *tsql.Execute_statement_argContext:
			args = append(args, v)
		case antlr.TerminalNode:
			switch v.GetSymbol().GetTokenType() {
			case tsql.TSqlParserLOGIN, tsql.TSqlParserUSER, tsql.TSqlParserCALLER:
				w.Act("EXECUTE_AS") // EXEC (…) AS LOGIN = '…', EXECUTE AS CALLER
			}
		}
	}
	switch {
	case proc != nil:
		parts := w.parts(proc)
		p := parts[len(parts)-1]
		if pos, ok := dynamicProcs[p]; ok {
			w.dynamicArg(args, pos)
			return nil
		}
		w.Act("EXEC")
		w.object(parts)
		w.effect(callEffects(parts)...)
		if opaqueProcs[p] {
			w.Act(domain.ActionUnknown)
		}
		return argTrees(args)
	case len(strs) > 0 && ctx.GetStart().GetTokenType() == tsql.TSqlParserLR_BRACKET:
		var text strings.Builder
		for _, s := range strs {
			lit, ok := w.literal(s)
			if !ok {
				w.Act(domain.ActionUnknown)
				w.effect(domain.EffectRunsCode)
				return nil
			}
			text.WriteString(lit)
		}
		w.dynamic(text.String())
		return nil
	case len(strs) > 0: // EXEC @proc, EXEC 'proc'
		w.Act("EXEC", domain.ActionUnknown)
		w.effect(domain.EffectRunsCode)
	}
	return argTrees(args)
}

func argTrees(args []*tsql.Execute_statement_argContext) []antlr.Tree {
	out := make([]antlr.Tree, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}

// literal returns the text of an execute_var_string made of literals only
// ('a', or 'a' + N'b' joined before parsing); ok is false when it holds a
// variable.
func (w *walker) literal(s *tsql.Execute_var_stringContext) (string, bool) {
	if len(s.AllLOCAL_ID()) > 0 || s.STRING() == nil {
		return "", false
	}
	t := s.STRING().GetSymbol()
	out, ok := sqlText(t.GetText())
	for _, more := range w.p.concat[t.GetStart()] {
		m, mok := sqlText(more.GetText())
		out, ok = out+m, ok && mok
	}
	return out, ok
}

// dynamicArg analyses the statement argument of sp_executesql, sp_prepare
// or sp_prepexec: the one at position pos, named or not; a variable or a
// missing argument is Unknown.
func (w *walker) dynamicArg(args []*tsql.Execute_statement_argContext, pos int) {
	var params []antlr.ParserRuleContext // execute_statement_arg_named / _unnamed, in order
	for _, a := range args {
		stack := []antlr.Tree{a}
		for len(stack) > 0 {
			t := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch v := t.(type) {
			case *tsql.Execute_statement_arg_namedContext, *tsql.Execute_statement_arg_unnamedContext:
				params = append(params, v.(antlr.ParserRuleContext))
			case antlr.ParserRuleContext:
				kids := v.GetChildren()
				for i := len(kids) - 1; i >= 0; i-- {
					stack = append(stack, kids[i])
				}
			}
		}
	}
	// SQL Server binds these procedures' arguments by position, whatever
	// name one carries ("arguments for extended stored procedures must be
	// entered in the specific order"): the text is the one at pos.
	var value tsql.IExecute_parameterContext
	if pos < len(params) {
		switch v := params[pos].(type) {
		case *tsql.Execute_statement_arg_namedContext:
			value = v.GetValue()
		case *tsql.Execute_statement_arg_unnamedContext:
			value = v.GetValue()
		}
	}
	if value == nil || value.Constant() == nil || value.Constant().STRING() == nil {
		w.Act(domain.ActionUnknown)
		w.effect(domain.EffectRunsCode) // a text the analyzer cannot see
		return
	}
	text, ok := sqlText(value.Constant().STRING().GetText())
	if !ok {
		w.Act(domain.ActionUnknown)
		w.effect(domain.EffectRunsCode)
		return
	}
	w.dynamic(text)
}

// dynamic adds the analysis of a dynamic SQL text, which runs in the
// batch's database (a USE inside it lasts until the EXEC ends).
func (w *walker) dynamic(text string) {
	if w.nest >= maxNesting {
		w.err = errNested
		return
	}
	r := analyze(text, w.dbs[0], w.nest+1)
	for _, db := range w.dbs[1:] {
		r2 := analyze(text, db, w.nest+1)
		r.Statements = append(r.Statements, r2.Statements...)
	}
	if r.Err != nil {
		w.Act(domain.ActionUnknown)
		if isUncheckable(r.Err) {
			w.err = r.Err
		}
	}
	for _, st := range r.Statements {
		w.add(st.Analysis)
	}
}
