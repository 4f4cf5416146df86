package analyzer

import (
	"math/big"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// truth is what the analyzer knows of a WHERE (or MERGE … ON) condition
// for the rows it filters, ordered so that OR is the greatest and AND the
// least of its operands (Kleene's three-valued logic, with two kinds of
// "cannot tell"):
//
//   - never: false for every row;
//   - null: NULL for every row (no row passes);
//   - perRow: depends on the row (it names a column) and is not known to
//     hold for every row;
//   - maybeAll: the same for every row but not known which (a parameter, a
//     function call, a subquery with no column, a literal expression the
//     analyzer does not fold), or a column compared with itself: it may
//     let every row through;
//   - always: true for every row.
type truth int

const (
	never truth = iota
	null
	perRow
	maybeAll
	always
)

// unbounded reports whether an UPDATE's or DELETE's WHERE (nil: none), or
// a MERGE's ON condition, read in scope s, lets every row of the table
// through: no WHERE, or a condition that reads always or maybeAll (see
// truth). A condition that names a column is read
// as choosing rows unless folding says otherwise (`id = 5 OR 1 = 1` is
// always); tautologies over columns other than `a = a` (`id > 0 OR id <= 0`)
// and conditions whose columns are only inside a subquery are not seen:
// docs/rules.md says so.
//
// Folding reads the values of the text's constants, which a shape key
// (cache.go) replaces; when it does, the statement is marked constants so
// the cache keeps its analysis for this exact text only.
func (w *walker) unbounded(where *pg.Node, s scope) bool {
	if where == nil {
		return true
	}
	var t truth
	w.withScope(s, func() { t = w.truth(where) })
	return t == always || t == maybeAll
}

// truth folds a condition; see the type.
func (w *walker) truth(n *pg.Node) truth {
	switch {
	case n.GetBoolExpr() != nil:
		b := n.GetBoolExpr()
		if b.Boolop == pg.BoolExprType_NOT_EXPR {
			if len(b.Args) != 1 {
				return w.opaque(n)
			}
			switch t := w.truth(b.Args[0]); t {
			case always:
				return never
			case never:
				return always
			default:
				return t
			}
		}
		if len(b.Args) == 0 {
			return w.opaque(n)
		}
		out := w.truth(b.Args[0])
		for _, a := range b.Args[1:] {
			t := w.truth(a)
			if b.Boolop == pg.BoolExprType_OR_EXPR {
				out = max(out, t)
			} else {
				out = min(out, t)
			}
		}
		return out
	case n.GetAConst() != nil, n.GetTypeCast() != nil:
		if v, ok := w.boolValue(n); ok {
			return v
		}
	case n.GetAExpr() != nil:
		if t, ok := w.compare(n.GetAExpr()); ok {
			return t
		}
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		if v, ok := w.literal(nt.Arg); ok {
			isNull := v == nil
			if isNull == (nt.Nulltesttype == pg.NullTestType_IS_NULL) {
				return always
			}
			return never
		}
	case n.GetBooleanTest() != nil:
		bt := n.GetBooleanTest()
		switch t := w.truth(bt.Arg); t {
		case always, never, null:
			return booleanTest(t, bt.Booltesttype)
		default:
			return t
		}
	case n.GetCurrentOfExpr() != nil:
		return perRow // one row, the cursor's
	}
	return w.opaque(n)
}

// opaque is the truth of a condition the analyzer does not fold: maybeAll
// when it names no column (it is the same for every row), else perRow.
func (w *walker) opaque(n *pg.Node) truth {
	if w.namesColumn(n.ProtoReflect()) {
		return perRow
	}
	return maybeAll
}

// namesColumn reports whether m or anything under it is a column reference
// that may differ from row to row (rowColumn).
func (w *walker) namesColumn(m protoreflect.Message) bool {
	if !m.IsValid() {
		return false
	}
	if c, ok := m.Interface().(*pg.ColumnRef); ok {
		return w.rowColumn(c)
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len() && !found; i++ {
				found = w.namesColumn(l.Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			found = w.namesColumn(v.Message())
		}
		return !found
	})
	return found
}

// booleanTest applies IS [NOT] TRUE / FALSE / UNKNOWN to a known value.
func booleanTest(t truth, k pg.BoolTestType) truth {
	var yes bool
	switch k {
	case pg.BoolTestType_IS_TRUE:
		yes = t == always
	case pg.BoolTestType_IS_NOT_TRUE:
		yes = t != always
	case pg.BoolTestType_IS_FALSE:
		yes = t == never
	case pg.BoolTestType_IS_NOT_FALSE:
		yes = t != never
	case pg.BoolTestType_IS_UNKNOWN:
		yes = t == null
	case pg.BoolTestType_IS_NOT_UNKNOWN:
		yes = t != null
	default:
		return maybeAll
	}
	if yes {
		return always
	}
	return never
}

// boolValue reads a literal as a boolean, as PostgreSQL does where a
// condition is expected: TRUE/FALSE/NULL, a string the boolean type reads
// ('t', 'yes', 'off'…), a cast to boolean of an integer or such a string.
func (w *walker) boolValue(n *pg.Node) (truth, bool) {
	if tc := n.GetTypeCast(); tc != nil {
		if !isBoolType(tc.TypeName) {
			return 0, false
		}
		v, ok := w.literal(tc.Arg)
		if !ok {
			return 0, false
		}
		switch x := v.(type) {
		case nil:
			return null, true
		case bool:
			return fromBool(x), true
		case *big.Rat:
			if !x.IsInt() {
				return 0, false // numeric → boolean has no cast
			}
			return fromBool(x.Sign() != 0), true
		case string:
			return parseBool(x)
		}
		return 0, false
	}
	v, ok := w.literal(n)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case nil:
		return null, true
	case bool:
		return fromBool(x), true
	case string:
		return parseBool(x)
	}
	return 0, false
}

func fromBool(b bool) truth {
	if b {
		return always
	}
	return never
}

// parseBool reads s as PostgreSQL's boolin does: trimmed, any case, a
// prefix of true/false/yes/no, on/off (at least two letters), 1/0.
func parseBool(s string) (truth, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return 0, false
	}
	for _, w := range []struct {
		word string
		min  int
		val  bool
	}{{"true", 1, true}, {"false", 1, false}, {"yes", 1, true}, {"no", 1, false},
		{"on", 2, true}, {"off", 2, false}, {"1", 1, true}, {"0", 1, false}} {
		if len(s) >= w.min && strings.HasPrefix(w.word, s) {
			return fromBool(w.val), true
		}
	}
	return 0, false
}

func isBoolType(t *pg.TypeName) bool {
	parts := strs(t.GetNames())
	if len(parts) == 0 || len(t.GetArrayBounds()) > 0 {
		return false
	}
	name := parts[len(parts)-1]
	return (name == "bool" || name == "boolean") && (len(parts) == 1 || parts[0] == "pg_catalog")
}

// literal returns a constant's value: nil (NULL), bool, *big.Rat (an
// integer or a decimal number) or string. ok is false for anything else.
// Reading an integer, number or string marks the statement constants.
func (w *walker) literal(n *pg.Node) (any, bool) {
	c := n.GetAConst()
	if c == nil {
		return nil, false
	}
	if c.Isnull {
		return nil, true
	}
	switch {
	case c.GetBoolval() != nil:
		return c.GetBoolval().Boolval, true
	case c.GetIval() != nil:
		w.st.constants = true
		return new(big.Rat).SetInt64(int64(c.GetIval().Ival)), true
	case c.GetFval() != nil:
		w.st.constants = true
		s := c.GetFval().Fval
		if strings.Trim(s, "0123456789.eE+-") != "" {
			return nil, false // 0x…, 1_000: read by the server, not here
		}
		r, ok := new(big.Rat).SetString(s)
		return r, ok
	case c.GetSval() != nil:
		w.st.constants = true
		return c.GetSval().Sval, true
	}
	return nil, false
}

// compare folds a comparison of two literals (=, <>, <, <=, >, >= between
// numbers; = and <> between strings, which collations do not reorder, and
// between booleans; IS [NOT] DISTINCT FROM), and a column compared with
// itself by =, <=, >= or IS NOT DISTINCT FROM (maybeAll: true for every row
// whose value is not NULL; `t.id = id` is one column when t names the
// written table, see scope). ok is false when it cannot tell.
func (w *walker) compare(e *pg.A_Expr) (truth, bool) {
	op := strs(e.Name)
	if len(op) != 1 {
		return 0, false // OPERATOR(schema.op): maybe not the built-in one
	}
	switch e.Kind {
	case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
	default:
		return 0, false
	}
	if l, r := e.Lexpr.GetColumnRef(), e.Rexpr.GetColumnRef(); l != nil && r != nil {
		a, b := w.columnName(l), w.columnName(r)
		if a != nil && slices.Equal(a, b) && (e.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT || op[0] == "=" || op[0] == "<=" || op[0] == ">=") {
			return maybeAll, true
		}
		return 0, false
	}
	if e.Lexpr.GetAConst() == nil || e.Rexpr.GetAConst() == nil {
		return 0, false // `id = 1`: its constant's value decides nothing here
	}
	a, okA := w.literal(e.Lexpr)
	b, okB := w.literal(e.Rexpr)
	if !okA || !okB {
		return 0, false
	}
	if e.Kind != pg.A_Expr_Kind_AEXPR_OP {
		same, ok := equalValues(a, b)
		if !ok {
			return 0, false
		}
		return fromBool(same == (e.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT)), true
	}
	if a == nil || b == nil {
		return null, true
	}
	if x, ok := a.(*big.Rat); ok {
		y, ok := b.(*big.Rat)
		if !ok {
			return 0, false
		}
		c := x.Cmp(y)
		switch op[0] {
		case "=":
			return fromBool(c == 0), true
		case "<>":
			return fromBool(c != 0), true
		case "<":
			return fromBool(c < 0), true
		case "<=":
			return fromBool(c <= 0), true
		case ">":
			return fromBool(c > 0), true
		case ">=":
			return fromBool(c >= 0), true
		}
		return 0, false
	}
	same, ok := equalValues(a, b)
	if !ok {
		return 0, false
	}
	switch op[0] {
	case "=":
		return fromBool(same), true
	case "<>":
		return fromBool(!same), true
	}
	return 0, false
}

// equalValues compares two literals of one kind (NULL counts as equal only
// to NULL, as IS NOT DISTINCT FROM does); ok is false for two kinds.
func equalValues(a, b any) (same, ok bool) {
	if a == nil || b == nil {
		return a == nil && b == nil, true
	}
	switch x := a.(type) {
	case bool:
		y, ok := b.(bool)
		return ok && x == y, ok
	case string:
		y, ok := b.(string)
		return ok && x == y, ok
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x.Cmp(y) == 0, ok
	}
	return false, false
}
