package analyzer

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// scope says what the column references of a condition where.go folds
// stand for: the written table's rows, or (in a MERGE whose source is a
// constant row set) the source's values, which are the same for every row
// of the target.
type scope struct {
	// self is the name that qualifies the written table's columns: its
	// alias, or its name when it has none ("" outside UPDATE, DELETE, MERGE).
	self string
	// merge is set while a MERGE's ON condition over a constant source is
	// read: then only the target's columns choose rows.
	merge bool
	// sourceCols are that source's column names; nil when some are unknown,
	// and then an unqualified name may be the source's.
	sourceCols map[string]bool
}

// writtenName returns the name that qualifies rv's columns in the
// statement: its alias, else its relation name.
func writtenName(rv *pg.RangeVar) string {
	if a := rv.GetAlias().GetAliasname(); a != "" {
		return a
	}
	return rv.GetRelname()
}

// withScope runs f with s as the scope of the conditions it folds.
func (w *walker) withScope(s scope, f func()) {
	old := w.scope
	w.scope = s
	defer func() { w.scope = old }()
	f()
}

// columnName returns a column reference's fields with a qualifier naming
// the written table dropped (`t.id` and `id` are one column in `UPDATE t
// … WHERE t.id = id`); nil when a field is not a name (`t.*`).
func (w *walker) columnName(c *pg.ColumnRef) []string {
	parts := strs(c.GetFields())
	if len(parts) != len(c.GetFields()) {
		return nil
	}
	if n := len(parts); n >= 2 && w.scope.self != "" && parts[n-2] == w.scope.self {
		return parts[n-1:]
	}
	return parts
}

// rowColumn reports whether c may name a column of the written table's
// rows (a value that differs from row to row). Outside a MERGE over a
// constant source every column reference may; inside one, only a name
// qualified by the target, or an unqualified name the source does not have:
// the others are the source's constants.
func (w *walker) rowColumn(c *pg.ColumnRef) bool {
	if !w.scope.merge {
		return true
	}
	f := c.GetFields()
	if len(f) >= 2 {
		q := f[len(f)-2].GetString_()
		return q != nil && q.Sval == w.scope.self
	}
	name := f[0].GetString_()
	return name != nil && w.scope.sourceCols != nil && !w.scope.sourceCols[name.Sval]
}

// constantRows reports whether n (an INSERT's query or a MERGE's source:
// a SelectStmt, or a RangeSubselect holding one) yields a fixed list of rows
// that does not read any table: a VALUES list, or a SELECT without FROM,
// WITH or UNION whose expressions hold no column, function call or
// subquery (a set-returning function such as generate_series could yield
// any number of rows). cols are the rows' column names as the statement may
// reference them; nil when some are unknown.
func constantRows(n *pg.Node) (cols map[string]bool, ok bool) {
	s := n.GetSelectStmt()
	var alias *pg.Alias
	if r := n.GetRangeSubselect(); r != nil {
		s, alias = r.GetSubquery().GetSelectStmt(), r.GetAlias()
	}
	if s == nil || len(s.FromClause) > 0 || s.WithClause != nil || s.Op != pg.SetOperation_SETOP_NONE {
		return nil, false
	}
	if readsSomething(s.ProtoReflect()) {
		return nil, false
	}
	if len(s.ValuesLists) > 0 {
		cols = map[string]bool{}
		if l := s.ValuesLists[0].GetList(); l != nil {
			for i := range l.Items {
				cols["column"+strconv.Itoa(i+1)] = true
			}
		}
	} else {
		cols = map[string]bool{}
		for _, t := range s.TargetList {
			name := t.GetResTarget().GetName()
			if name == "" {
				cols = nil // PostgreSQL names it after its expression
				break
			}
			cols[name] = true
		}
	}
	if names := strs(alias.GetColnames()); len(names) > 0 {
		if cols == nil && len(names) < len(s.TargetList) {
			return nil, true
		}
		if cols == nil {
			cols = map[string]bool{}
		}
		for _, c := range names {
			cols[c] = true
		}
	}
	return cols, true
}

// readsSomething reports whether m holds a column reference, a subquery or
// a function call: a value that may differ from row to row, read a table,
// or (a set-returning function) yield many rows.
func readsSomething(m protoreflect.Message) bool {
	if !m.IsValid() {
		return false
	}
	switch m.Interface().(type) {
	case *pg.ColumnRef, *pg.SubLink, *pg.FuncCall:
		return true
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len() && !found; i++ {
				found = readsSomething(l.Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			found = readsSomething(v.Message())
		}
		return !found
	})
	return found
}
