package analyzer

import (
	"reflect"

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
// them or none, and an OR with such a side reaches all. TOP (n) does not
// bound it (it says how many, not which, and runs in loops that empty a
// table), nor does a join. WHERE CURRENT OF a cursor is one row. A
// condition on columns that every row happens to meet (`id = id`, `id IS
// NOT NULL`) is not seen.

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

// unboundedWrite reports whether an update_statement or delete_statement
// is UNBOUNDED: no WHERE, or one that may hold for every row.
func (w *walker) unboundedWrite(ctx antlr.ParserRuleContext) bool {
	kids := ctx.GetChildren()
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
				return grammarCond(n).everyRow(false)
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
	on := true
	for _, c := range ctx.GetChildren() {
		switch v := c.(type) {
		case *tsql.Search_conditionContext:
			on = grammarCond(v).everyRow(false)
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
					and = grammarCond(x).everyRow(false)
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

// grammarCond reads a search_condition of the grammar: NOT* (predicate |
// '(' search_condition ')'), or two of them joined by AND or OR.
func grammarCond(sc *tsql.Search_conditionContext) cond {
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
			inner = append(inner, grammarCond(v))
		case *tsql.PredicateContext:
			inner = append(inner, cond{column: grammarColumn(v)})
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

// grammarColumn reports whether the tree under n names a column outside
// its subqueries.
func grammarColumn(n antlr.Tree) bool {
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
			return true
		case tsql.TSqlParserRULE_subquery:
			continue
		}
		stack = append(stack, ctx.GetChildren()...)
	}
	return false
}

// fastCond reads a teesql boolean expression as grammarCond reads the
// grammar's.
func fastCond(e ast.BooleanExpression) cond {
	switch v := e.(type) {
	case *ast.BooleanBinaryExpression:
		op := byte('&')
		if v.BinaryExpressionType == "Or" {
			op = '|'
		}
		return cond{op: op, kids: []cond{fastCond(v.FirstExpression), fastCond(v.SecondExpression)}}
	case *ast.BooleanNotExpression:
		return cond{op: '!', kids: []cond{fastCond(v.Expression)}}
	case *ast.BooleanParenthesisExpression:
		return fastCond(v.Expression)
	}
	return cond{column: fastColumn(reflect.ValueOf(e))}
}

var queryExpression = reflect.TypeOf((*ast.QueryExpression)(nil)).Elem()

// fastColumn reports whether the teesql tree v names a column outside its
// subqueries.
func fastColumn(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return false
		}
		if v.Type().Implements(queryExpression) {
			return false
		}
		if _, ok := v.Interface().(*ast.ColumnReferenceExpression); ok {
			return true
		}
		return fastColumn(v.Elem())
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if fastColumn(v.Index(i)) {
				return true
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && fastColumn(v.Field(i)) {
				return true
			}
		}
	}
	return false
}

// fastUnbounded reports whether a teesql UPDATE or DELETE with where (nil:
// none) is UNBOUNDED, as unboundedWrite reads the grammar's.
func fastUnbounded(where *ast.WhereClause) bool {
	switch {
	case where == nil || where.SearchCondition == nil && where.Cursor == nil:
		return true
	case where.Cursor != nil:
		return false
	}
	return fastCond(where.SearchCondition).everyRow(false)
}
