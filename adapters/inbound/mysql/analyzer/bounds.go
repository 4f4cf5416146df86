package analyzer

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// UNBOUNDED (domain.EffectUnbounded) is the effect of a DELETE or UPDATE
// that may reach every row of a table it writes: the guard of MySQL's
// sql_safe_updates and of "a WHERE on every UPDATE and DELETE" reviews.
//
// The analyzer does not evaluate expressions: MySQL casts as it goes
// (WHERE '1abc' is true, WHERE ' 1' too, WHERE @v and WHERE ? depend on a
// value the text does not hold), so a condition that reads no column of
// the rows is the same for every row, reaching all of them or none, and
// is UNBOUNDED, even WHERE 0 (over-reporting is the safe side). A
// condition reaches every row when (reaches):
//
//   - there is none, or it reads no column of the written table: outside a
//     subquery any column, inside one only a column qualified by the
//     written table's name or alias where no table of the subquery takes
//     that name (a correlated reference; an unqualified column there may be
//     the subquery's own, and the analyzer does not know the schema);
//   - it is A OR B and either side reaches every row (`id = 1 OR 1`), or A
//     AND B and both do; NOT, IS [NOT] TRUE / FALSE and brackets turn or
//     keep the sense (`NOT (id = 1 AND 0)`);
//   - it compares a column with itself: `id = id`, `id <=> id`, `id >= id`,
//     within brackets, and in a one-table statement with or without the
//     table's name or alias (`t.id = id`);
//   - it is EXISTS (subquery) whose WHERE, HAVING and join ONs read no
//     column of the written rows (`EXISTS (SELECT t.id)`).
//
// What depends on the data (`id > 0`, `id IS NOT NULL`) is bounded: no
// analyzer can tell those apart from a filter. LIMIT does not bound: it
// picks which rows, not how many may be reached when repeated (MySQL's
// sql_safe_updates accepts LIMIT; this guard does not).
//
// Statements of several tables (DELETE t1 FROM t1 JOIN t2 …, UPDATE t1, t2
// SET …): each written table must be bounded by a column qualified with
// its name or alias in the WHERE or in an inner join's ON, or by a join
// USING or NATURAL; unqualified columns do not count (which table they
// name depends on the schema), nor do outer joins' ON conditions (a LEFT
// JOIN keeps every row of its left side). The written tables are DELETE's
// list, or for UPDATE those its SET columns qualify (every table when one
// is unqualified). A written table that appears twice in the FROM
// (`t JOIN t s ON t.id = s.id`) is UNBOUNDED: a condition between its
// copies may pair every row with itself.
//
// All of this depends on the tree's shape, never on a constant's value, so
// texts of one shape (shape.go) have the same effects.

// deleteUnbounded reports whether a DELETE may reach every row of a table
// it deletes from.
func deleteUnbounded(v *ast.DeleteStmt) bool {
	var written []string
	if v.IsMultiTable && v.Tables != nil {
		for _, t := range v.Tables.Tables {
			written = append(written, t.Name.L)
		}
	}
	return unbounded(v.TableRefs, written, v.Where)
}

// updateUnbounded reports whether an UPDATE may reach every row of a table
// it writes.
func updateUnbounded(v *ast.UpdateStmt) bool {
	var written []string
	for _, a := range v.List {
		if a.Column == nil || a.Column.Table.L == "" {
			written = nil // a column of any of the tables
			break
		}
		written = append(written, a.Column.Table.L)
	}
	return unbounded(v.TableRefs, written, v.Where)
}

// source is one table of a statement's FROM: the name its columns are
// qualified with (alias or table name), and the USING or NATURAL joins
// that bound it.
type source struct {
	name    string
	joinsOn bool
	table   string // a base table's name ("" for a derived one)
}

// unbounded reports whether where and refs' inner-join conditions leave a
// written table (written names; nil: every table of refs) reachable whole.
func unbounded(refs *ast.TableRefsClause, written []string, where ast.ExprNode) bool {
	var sources []source
	var conds []ast.ExprNode
	if where != nil {
		conds = append(conds, where)
	}
	if refs != nil {
		sources, conds = fromTables(refs.TableRefs, false, sources, conds)
	}
	if len(sources) <= 1 {
		var names []string
		for _, s := range sources {
			names = append(names, s.name)
		}
		return reachesAll(conds, columns{names: names})
	}
	if len(written) == 0 {
		for _, s := range sources {
			written = append(written, s.name)
		}
	}
	for _, name := range written {
		bound := false
		for _, s := range sources {
			bound = bound || (s.name == name && s.joinsOn)
		}
		if selfJoined(sources, name) {
			return true // t JOIN t s ON t.id = s.id pairs every row with itself
		}
		if !bound && reachesAll(conds, columns{names: []string{name}, qualified: true}) {
			return true
		}
	}
	return false
}

// selfJoined reports whether the table that name (an alias or table name)
// stands for appears more than once among sources: a condition between
// its two copies may pair every row with itself, so the analyzer does not
// count it (fail closed).
func selfJoined(sources []source, name string) bool {
	base := ""
	for _, s := range sources {
		if s.name == name {
			base = s.table
		}
	}
	n := 0
	for _, s := range sources {
		if base != "" && s.table == base {
			n++
		}
	}
	return n > 1
}

// fromTables adds the tables of a FROM tree to sources and its inner
// joins' ON conditions to conds; using marks tables under a USING or
// NATURAL join.
func fromTables(n ast.ResultSetNode, using bool, sources []source, conds []ast.ExprNode) ([]source, []ast.ExprNode) {
	switch v := n.(type) {
	case *ast.Join:
		inner := v.Tp == ast.CrossJoin
		if inner && v.On != nil {
			conds = append(conds, v.On.Expr)
		}
		using = using || (inner && (len(v.Using) > 0 || v.NaturalJoin))
		sources, conds = fromTables(v.Left, using, sources, conds)
		if v.Right != nil {
			sources, conds = fromTables(v.Right, using, sources, conds)
		}
	case *ast.TableSource:
		name := v.AsName.L
		if t, ok := v.Source.(*ast.TableName); ok && name == "" {
			name = t.Name.L
		}
		if j, ok := v.Source.(*ast.Join); ok {
			return fromTables(j, using, sources, conds)
		}
		base := ""
		if t, ok := v.Source.(*ast.TableName); ok {
			base = t.Name.L // db1.t and db2.t alike: over-reports, never under
		}
		sources = append(sources, source{name: name, joinsOn: using, table: base})
	}
	return sources, conds
}

// reachesAll reports whether the conjunction of conds may hold for every
// row, counting as the written rows' columns those counts names.
func reachesAll(conds []ast.ExprNode, counts columns) bool {
	for _, c := range conds {
		if !reaches(c, false, counts) {
			return false
		}
	}
	return true
}

// reaches reports whether e (NOT e when neg) may hold for every row.
func reaches(e ast.ExprNode, neg bool, counts columns) bool {
	switch v := e.(type) {
	case *ast.ParenthesesExpr:
		return reaches(v.Expr, neg, counts)
	case *ast.UnaryOperationExpr:
		if v.Op == opcode.Not || v.Op == opcode.Not2 {
			return reaches(v.V, !neg, counts)
		}
	case *ast.IsTruthExpr: // IS TRUE, IS NOT TRUE, IS FALSE, IS NOT FALSE
		return reaches(v.Expr, neg != (v.Not == (v.True == 1)), counts)
	case *ast.ExistsSubqueryExpr:
		// EXISTS (SELECT t.id): the row is read, but no condition on it.
		if sub, ok := v.Sel.(*ast.SubqueryExpr); ok {
			if sel, ok := sub.Query.(*ast.SelectStmt); ok {
				return !filtersRow(sel, counts)
			}
		}
		return true
	case *ast.BinaryOperationExpr:
		switch v.Op {
		case opcode.LogicOr, opcode.LogicAnd:
			l, r := reaches(v.L, neg, counts), reaches(v.R, neg, counts)
			if (v.Op == opcode.LogicOr) != neg {
				return l || r
			}
			return l && r
		case opcode.EQ, opcode.NullEQ, opcode.GE, opcode.LE:
			if !neg && sameColumn(v.L, v.R, counts) {
				return true
			}
		case opcode.NE, opcode.LT, opcode.GT:
			if neg && sameColumn(v.L, v.R, counts) {
				return true
			}
		}
	}
	return !readsRow(e, counts)
}

// sameColumn reports whether a and b name the same column, within
// brackets, and, in a one-table statement (counts not qualified), with or
// without the table's name or alias (`t.id = id`).
func sameColumn(a, b ast.ExprNode, counts columns) bool {
	x, ok := unbracketed(a).(*ast.ColumnNameExpr)
	y, ok2 := unbracketed(b).(*ast.ColumnNameExpr)
	if !ok || !ok2 {
		return false
	}
	xs, xt := x.Name.Schema.L, x.Name.Table.L
	ys, yt := y.Name.Schema.L, y.Name.Table.L
	if !counts.qualified {
		if slices.Contains(counts.names, xt) {
			xs, xt = "", ""
		}
		if slices.Contains(counts.names, yt) {
			ys, yt = "", ""
		}
	}
	return xs == ys && xt == yt && x.Name.Name.L == y.Name.Name.L
}

func unbracketed(e ast.ExprNode) ast.ExprNode {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

// filtersRow reports whether an EXISTS subquery's conditions (WHERE,
// HAVING, its inner joins' ON) read a column of the written rows: only
// there does a correlated reference filter them.
func filtersRow(sel *ast.SelectStmt, counts columns) bool {
	var names []string
	var conds []ast.ExprNode
	if sel.From != nil {
		var srcs []source
		srcs, conds = fromTables(sel.From.TableRefs, false, nil, nil)
		for _, s := range srcs {
			names = append(names, s.name)
		}
	}
	if sel.Where != nil {
		conds = append(conds, sel.Where)
	}
	if sel.Having != nil && sel.Having.Expr != nil {
		conds = append(conds, sel.Having.Expr)
	}
	for _, c := range conds {
		r := &rowReader{counts: counts, scopes: [][]string{names}}
		c.Accept(r)
		if r.found {
			return true
		}
	}
	return false
}

// columns says which column references read the written rows: with
// qualified, only those qualified by one of names (a table's name or
// alias); otherwise any outside a subquery too. Inside a subquery only a
// reference qualified by one of names counts, and only where no table of
// the subquery (or of one around it) takes that name: a correlated
// reference to the written table.
type columns struct {
	names     []string
	qualified bool
}

// readsRow reports whether e reads a column of the written rows (counts).
func readsRow(e ast.ExprNode, counts columns) bool {
	r := &rowReader{counts: counts}
	e.Accept(r)
	return r.found
}

// rowReader is readsRow's ast.Visitor; scopes are the table names of the
// subqueries it is in, innermost last.
type rowReader struct {
	counts columns
	scopes [][]string
	found  bool
}

func (r *rowReader) Enter(n ast.Node) (ast.Node, bool) {
	switch v := n.(type) {
	case *ast.SelectStmt:
		var names []string
		if v.From != nil {
			srcs, _ := fromTables(v.From.TableRefs, false, nil, nil)
			for _, s := range srcs {
				names = append(names, s.name)
			}
		}
		r.scopes = append(r.scopes, names)
	case *ast.ColumnNameExpr:
		r.found = r.found || r.reads(v.Name)
	}
	return n, r.found
}

func (r *rowReader) Leave(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.SelectStmt); ok {
		r.scopes = r.scopes[:len(r.scopes)-1]
	}
	return n, true
}

// reads reports whether column c, met where r is, is one of the written
// rows'.
func (r *rowReader) reads(c *ast.ColumnName) bool {
	if c.Table.L == "" {
		return len(r.scopes) == 0 && !r.counts.qualified
	}
	if !slices.Contains(r.counts.names, c.Table.L) {
		return false
	}
	for _, scope := range r.scopes {
		if slices.Contains(scope, c.Table.L) {
			return false // the subquery's own table of that name
		}
	}
	return true
}
