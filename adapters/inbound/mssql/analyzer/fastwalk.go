package analyzer

import (
	"reflect"
	"sort"
	"strings"

	"github.com/sqlc-dev/teesql/ast"

	"github.com/hoophq/sidecar/domain"
)

// fastWalker: what a teesql tree adds to a statement's analysis.

// fastWalker adds what a teesql tree says to a walker (classify.go), with
// the names read from the text as the grammar path reads them.
type fastWalker struct {
	w    *walker
	text string
	toks []token
	offs []int // UTF-16 offset → byte offset; nil for an ASCII text
	// into counts the INTO keywords the tree holds (SELECT … INTO t,
	// INSERT INTO t): teesql drops an INTO where SQL Server refuses one
	// (in a subquery), and the fast path leaves any text where the count
	// is not lex's to the grammar.
	into int
	// order and offset count the ORDER BY and OFFSET clauses the tree
	// holds: teesql parses the ORDER BY of a parenthesized query ((SELECT
	// a FROM t) ORDER BY dbo.f(a)) and the OFFSET … FETCH of one or of a
	// UNION, then drops them from the tree, and the subqueries and
	// functions in them with them.
	order, offset int
}

// span returns the byte range of a node's span; ok is false when it has
// none or it lies outside the text.
func (f *fastWalker) span(fr *ast.Fragment) (start, end int, ok bool) {
	if !fr.HasSpan() {
		return 0, 0, false
	}
	return f.byteRange(fr.StartOffset, fr.EndOffset())
}

// byteRange converts a range of UTF-16 offsets to bytes.
func (f *fastWalker) byteRange(u16Start, u16End int) (start, end int, ok bool) {
	if u16Start < 0 || u16End < u16Start {
		return 0, 0, false
	}
	if f.offs == nil {
		return u16Start, u16End, u16End <= len(f.text)
	}
	if u16End >= len(f.offs) {
		return 0, 0, false
	}
	return f.offs[u16Start], f.offs[u16End], true
}

// node walks v (an AST node, a slice or an interface holding them) and
// reports false on a node outside the fast path.
func (f *fastWalker) node(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return true
		}
		if v.Kind() == reflect.Interface {
			return f.node(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if !f.node(v.Index(i)) {
				return false
			}
		}
		return true
	default:
		return true // a field of a basic type
	}
	n := v.Interface()
	acts, known := fastNodes[v.Type()]
	if !known {
		return false
	}
	f.w.Act(acts...)
	switch x := n.(type) {
	case *ast.SchemaObjectName:
		return f.object(&x.Fragment)
	case *ast.ColumnReferenceExpression:
		return true // t.col, t.*: t is an alias or a table named elsewhere
	case *ast.SqlDataTypeReference:
		// A built-in type (int, nvarchar) names nothing the rules see; a
		// user-defined one (dbo.money_t, or a name teesql does not know as
		// built in) the grammar reports as a target: leave it to the grammar.
		if x.SqlDataTypeOption == "" || (x.Name != nil && x.Name.Count > 1) {
			return false
		}
		return f.node(reflect.ValueOf(x.Parameters))
	case *ast.SelectStatement:
		if x.Into != nil {
			f.w.Act("SELECT_INTO", "CREATE", "CREATE_TABLE")
			f.into++
		}
		if x.On != nil {
			return false
		}
	case *ast.FromClause:
		if !f.fromShape(x) {
			return false
		}
	case *ast.OrderByClause:
		f.order++
	case *ast.OffsetClause:
		f.offset++
		if !f.offsetShape(x) {
			return false
		}
	case *ast.UpdateSpecification:
		unbounded, ok := f.fastUnbounded(x.Target, x.FromClause != nil, x.WhereClause)
		if !ok {
			return false
		}
		if unbounded {
			f.w.effect(domain.EffectUnbounded)
		}
	case *ast.DeleteSpecification:
		unbounded, ok := f.fastUnbounded(x.Target, x.FromClause != nil, x.WhereClause)
		if !ok {
			return false
		}
		if unbounded {
			f.w.effect(domain.EffectUnbounded)
		}
	case *ast.InsertSpecification:
		if x.InsertOption == "Into" {
			f.into++
		}
	case *ast.FunctionCall:
		if !f.function(x) {
			return false
		}
	}
	e := v.Elem()
	for i := 0; i < e.NumField(); i++ {
		if e.Type().Field(i).Anonymous || !e.Type().Field(i).IsExported() {
			continue // Fragment: the span
		}
		if !f.node(e.Field(i)) {
			return false
		}
	}
	return true
}

// object adds the schema object named by the text of span.
func (f *fastWalker) object(span *ast.Fragment) bool {
	start, end, ok := f.span(span)
	if !ok {
		return false
	}
	parts, ok := f.nameParts(start, end)
	if !ok || parts[len(parts)-1] == "" {
		return false // dbo.t. : SQL Server refuses it, the grammar holds it
	}
	f.w.object(parts)
	return true
}

// function adds a called function: one named with a schema (dbo.f), or one
// by its name alone that is not among the grammar's built-in functions.
func (f *fastWalker) function(c *ast.FunctionCall) bool {
	if c.FunctionName == nil {
		return false
	}
	// The call target (dbo. of dbo.f) has no span of its own: the name is
	// the call's text up to the end of the function's name.
	if !c.HasSpan() || !c.FunctionName.HasSpan() {
		return false
	}
	start, end, ok := f.byteRange(c.StartOffset, c.FunctionName.EndOffset())
	if !ok {
		return false
	}
	parts, ok := f.nameParts(start, end)
	if !ok {
		return false
	}
	switch t := c.CallTarget.(type) {
	case nil:
		if len(parts) != 1 {
			return false
		}
		if !builtinFunctions[parts[0]] {
			f.w.function(parts)
		}
		return true
	case *ast.MultiPartIdentifierCallTarget:
		if t.MultiPartIdentifier == nil || len(parts) != len(t.MultiPartIdentifier.Identifiers)+1 {
			return false
		}
		f.w.function(parts)
		return true
	}
	return false
}

// nameParts returns the parts of the multi-part name written from byte
// start to end: its tokens (as lex reads them) joined without the spaces
// and comments between them, as the grammar path joins a name's tokens
// (walker.parts), then split (splitParts). ok is false for an empty range,
// or one that ends inside a token.
func (f *fastWalker) nameParts(start, end int) ([]string, bool) {
	if start < 0 || end > len(f.text) || start >= end {
		return nil, false
	}
	var b strings.Builder
	for k := f.tokenAt(start); k < len(f.toks) && f.toks[k].start < end; k++ {
		t := f.toks[k]
		if t.end > end {
			return nil, false
		}
		b.WriteString(f.text[t.start:t.end])
	}
	if b.Len() == 0 {
		return nil, false
	}
	return splitParts(b.String()), true
}

// tokenAt returns the index of the first token that starts at byte off or
// later.
func (f *fastWalker) tokenAt(off int) int {
	return sort.Search(len(f.toks), func(k int) bool { return f.toks[k].start >= off })
}

// past returns the index of the token after node n's, when n's span starts
// with token k and ends with a token's end; ok is false otherwise (teesql
// spanned n otherwise than lex split the text).
func (f *fastWalker) past(k int, n any) (int, bool) {
	s, ok := n.(interface{ Frag() *ast.Fragment })
	if !ok {
		return k, false
	}
	ns, ne, ok := f.span(s.Frag())
	if !ok || k >= len(f.toks) || f.toks[k].start != ns {
		return k, false
	}
	first := k
	for k < len(f.toks) && f.toks[k].end <= ne {
		k++
	}
	return k, k > first && f.toks[k-1].end == ne
}
