package analyzer

import (
	"reflect"
	"strings"

	"github.com/antlr4-go/antlr/v4"
	"github.com/bytebase/parser/tsql"
	"github.com/sqlc-dev/teesql/ast"
)

// UNBOUNDED (docs/rules.md; docs/mssql-listener.md, "Effects"): an UPDATE
// or DELETE that reaches every row. The analyzer cannot know the data, so
// it reads the condition's shape: a write is UNBOUNDED when it has no
// WHERE, or when its WHERE may hold for every row (cond.everyRow): a
// condition that names no column outside a subquery (`1=1`, `@all = 1`,
// `EXISTS (SELECT …)`) is the same for every row, so it reaches all of
// them or none, and an OR with such a side reaches all. With a FROM
// clause (a join), only a column qualified by the written target's name
// counts: `DELETE t FROM t CROSS JOIN u WHERE u.flag = 1` reaches every row
// of t, and an unqualified column may be u's. TOP (n) does not bound it (it
// says how many, not which, and runs in loops that empty a table), nor
// does a join's ON. WHERE CURRENT OF a cursor is one row. A condition on
// columns that every row happens to meet (`id = id`, `id IS NOT NULL`) is
// not seen. A column in double quotes does not count: under SET
// QUOTED_IDENTIFIER OFF "x" is a string (walker.doubleQuoted). Constants
// are never evaluated (`1=0` is UNBOUNDED too): the Cache shares one
// analysis among texts that differ only in constants (shape.go).

// cond is a search condition's boolean shape: AND, OR and NOT over leaves
// (predicates), each leaf knowing whether it names a column of the row.
type cond struct {
	op     byte // '&', '|', '!' or 0 for a leaf
	kids   []cond
	column bool // a leaf that names a column outside its subqueries
}

// everyRow reports whether c may hold for every row: a leaf that names no
// column; an AND whose sides all may; an OR with one side that may (under
// an odd number of NOTs, AND and OR swap).
func (c cond) everyRow(negated bool) bool {
	switch c.op {
	case '!':
		return c.kids[0].everyRow(!negated)
	case '&', '|':
		any := (c.op == '|') != negated
		for _, k := range c.kids {
			if k.everyRow(negated) == any {
				return any
			}
		}
		return !any
	}
	return !c.column
}

// rowColumns says which columns name the written row: with no FROM clause
// every column does; with one, only those qualified by one of names (the
// target as written, its alias), lower case.
type rowColumns struct {
	joined bool
	names  map[string]bool
}

// counts reports whether the column named by parts (lower case) is of the
// written row.
func (r rowColumns) counts(parts []string) bool {
	if !r.joined {
		return true
	}
	return len(parts) >= 2 && r.names[parts[len(parts)-2]]
}

// unboundedWrite reports whether an update_statement or delete_statement
// is UNBOUNDED: no WHERE, or one that may hold for every row.
func (w *walker) unboundedWrite(ctx antlr.ParserRuleContext) bool {
	kids := ctx.GetChildren()
	rows := rowColumns{names: map[string]bool{}}
	for _, c := range kids {
		switch v := c.(type) {
		case *tsql.Delete_statement_fromContext:
			if o := v.Ddl_object(); o != nil {
				rows.names[w.last(o)] = true
			}
		case *tsql.Ddl_objectContext:
			rows.names[w.last(v)] = true
		case *tsql.From_table_sourcesContext, *tsql.Table_sourcesContext:
			rows.joined = true
		}
	}
	for i, c := range kids {
		t, ok := c.(antlr.TerminalNode)
		if !ok || t.GetSymbol().GetTokenType() != tsql.TSqlParserWHERE {
			continue
		}
		if i+1 < len(kids) {
			switch n := kids[i+1].(type) {
			case antlr.TerminalNode: // CURRENT OF cursor: one row
				return n.GetSymbol().GetTokenType() != tsql.TSqlParserCURRENT
			case *tsql.Search_conditionContext:
				return w.grammarCond(n, rows).everyRow(false)
			}
		}
		return true
	}
	return true
}

// unboundedMerge reports whether a merge_statement's UPDATE or DELETE
// clause may reach every target row: WHEN MATCHED when its ON condition
// (and the clause's own AND condition) may hold for every row, WHEN NOT
// MATCHED BY SOURCE unless its AND condition names a column (it reaches
// every target row the source lacks, all of them for an empty source).
func (w *walker) unboundedMerge(ctx antlr.ParserRuleContext) bool {
	// The ON and AND conditions name the source's columns too: only those
	// qualified by the target's name or alias are of its row.
	rows := rowColumns{joined: true, names: map[string]bool{}}
	for _, c := range ctx.GetChildren() {
		switch v := c.(type) {
		case *tsql.Ddl_objectContext:
			rows.names[w.last(v)] = true
		case *tsql.As_table_aliasContext:
			if a := v.Table_alias(); a != nil {
				rows.names[name(a.Id_())] = true
			}
		}
	}
	on := true
	for _, c := range ctx.GetChildren() {
		switch v := c.(type) {
		case *tsql.Search_conditionContext:
			on = w.grammarCond(v, rows).everyRow(false)
		case *tsql.When_matchesContext:
			bySource, and := false, true
			for _, k := range v.GetChildren() {
				switch x := k.(type) {
				case antlr.TerminalNode:
					switch x.GetSymbol().GetTokenType() {
					case tsql.TSqlParserWHEN:
						bySource, and = false, true
					case tsql.TSqlParserSOURCE:
						bySource = true
					}
				case *tsql.Search_conditionContext:
					and = w.grammarCond(x, rows).everyRow(false)
				case *tsql.Merge_matchedContext:
					if and && (on || bySource) {
						return true
					}
				}
			}
		}
	}
	return false
}

// doubleQuoted reports whether a name ctx spans has a part in double
// quotes: under SET QUOTED_IDENTIFIER OFF (a session's setting, or an
// earlier statement of the batch) SQL Server reads "x" as a string, so
// `WHERE "x" = 'x'` names no column and holds for every row.
func (w *walker) doubleQuoted(ctx antlr.ParserRuleContext) bool {
	for k := ctx.GetStart().GetTokenIndex(); k <= ctx.GetStop().GetTokenIndex() && k < w.p.toks.Size(); k++ {
		if strings.HasPrefix(w.p.toks.Get(k).GetText(), `"`) {
			return true
		}
	}
	return false
}

// last returns the last part of the name ctx spans (lower case).
func (w *walker) last(ctx antlr.ParserRuleContext) string {
	parts := w.parts(ctx)
	return parts[len(parts)-1]
}

// grammarCond reads a search_condition of the grammar: NOT* (predicate |
// '(' search_condition ')'), or two of them joined by AND or OR; a leaf
// names a column when one of rows's is outside its subqueries.
func (w *walker) grammarCond(sc *tsql.Search_conditionContext, rows rowColumns) cond {
	var c cond
	nots := 0
	var inner []cond
	for _, k := range sc.GetChildren() {
		switch v := k.(type) {
		case antlr.TerminalNode:
			switch v.GetSymbol().GetTokenType() {
			case tsql.TSqlParserNOT:
				nots++
			case tsql.TSqlParserAND:
				c.op = '&'
			case tsql.TSqlParserOR:
				c.op = '|'
			}
		case *tsql.Search_conditionContext:
			inner = append(inner, w.grammarCond(v, rows))
		case *tsql.PredicateContext:
			inner = append(inner, cond{column: w.grammarColumn(v, rows)})
		}
	}
	switch {
	case c.op != 0:
		c.kids = inner
	case len(inner) == 1:
		c = inner[0]
	default: // a shape not foreseen: may hold for every row (fail closed)
		c = cond{}
	}
	if nots%2 == 1 {
		c = cond{op: '!', kids: []cond{c}}
	}
	return c
}

// grammarColumn reports whether the tree under n names a column of rows
// outside its subqueries.
func (w *walker) grammarColumn(n antlr.Tree, rows rowColumns) bool {
	stack := []antlr.Tree{n}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ctx, ok := t.(antlr.ParserRuleContext)
		if !ok {
			continue
		}
		switch ctx.GetRuleIndex() {
		case tsql.TSqlParserRULE_full_column_name:
			if rows.counts(w.parts(ctx)) && !w.doubleQuoted(ctx) {
				return true
			}
			continue
		case tsql.TSqlParserRULE_subquery:
			continue
		}
		stack = append(stack, ctx.GetChildren()...)
	}
	return false
}

// fastUnbounded reports whether a teesql UPDATE or DELETE of target, with
// a FROM clause or not, and where (nil: none) is UNBOUNDED, as
// unboundedWrite reads the grammar's; ok is false when a name does not
// read as the grammar path reads it (the text goes to the grammar).
func (f *fastWalker) fastUnbounded(target ast.TableReference, joined bool, where *ast.WhereClause) (unbounded, ok bool) {
	rows := rowColumns{joined: joined, names: map[string]bool{}}
	switch t := target.(type) {
	case *ast.NamedTableReference:
		if t.SchemaObject == nil {
			return false, false
		}
		start, end, ok := f.span(&t.SchemaObject.Fragment)
		if !ok {
			return false, false
		}
		parts, ok := f.nameParts(start, end)
		if !ok {
			return false, false
		}
		rows.names[parts[len(parts)-1]] = true
	case *ast.VariableTableReference:
		if t.Variable == nil {
			return false, false
		}
		rows.names[strings.ToLower(t.Variable.Name)] = true
	default:
		return false, false
	}
	switch {
	case where == nil || where.SearchCondition == nil && where.Cursor == nil:
		return true, true
	case where.Cursor != nil:
		return false, true
	}
	c, ok := f.fastCond(where.SearchCondition, rows)
	return ok && c.everyRow(false), ok
}

// fastCond reads a teesql boolean expression as grammarCond reads the
// grammar's.
func (f *fastWalker) fastCond(e ast.BooleanExpression, rows rowColumns) (cond, bool) {
	switch v := e.(type) {
	case *ast.BooleanBinaryExpression:
		op := byte('&')
		if v.BinaryExpressionType == "Or" {
			op = '|'
		}
		a, ok1 := f.fastCond(v.FirstExpression, rows)
		b, ok2 := f.fastCond(v.SecondExpression, rows)
		return cond{op: op, kids: []cond{a, b}}, ok1 && ok2
	case *ast.BooleanNotExpression:
		a, ok := f.fastCond(v.Expression, rows)
		return cond{op: '!', kids: []cond{a}}, ok
	case *ast.BooleanParenthesisExpression:
		return f.fastCond(v.Expression, rows)
	}
	column, ok := f.fastColumn(reflect.ValueOf(e), rows)
	return cond{column: column}, ok
}

var queryExpression = reflect.TypeOf((*ast.QueryExpression)(nil)).Elem()

// fastColumn reports whether the teesql tree v names a column of rows
// outside its subqueries; ok is false for a column name that does not
// read.
func (f *fastWalker) fastColumn(v reflect.Value, rows rowColumns) (found, ok bool) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() || v.Type().Implements(queryExpression) {
			return false, true
		}
		if c, is := v.Interface().(*ast.ColumnReferenceExpression); is {
			start, end, ok := f.span(&c.Fragment)
			if !ok {
				return false, false
			}
			parts, ok := f.nameParts(start, end)
			quoted := false // "x": a string under QUOTED_IDENTIFIER OFF (walker.doubleQuoted)
			for k := f.tokenAt(start); k < len(f.toks) && f.toks[k].start < end; k++ {
				quoted = quoted || f.text[f.toks[k].start] == '"'
			}
			return ok && rows.counts(parts) && !quoted, ok
		}
		return f.fastColumn(v.Elem(), rows)
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if found, ok := f.fastColumn(v.Index(i), rows); found || !ok {
				return found, ok
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if found, ok := f.fastColumn(v.Field(i), rows); found || !ok {
				return found, ok
			}
		}
	}
	return false, true
}
