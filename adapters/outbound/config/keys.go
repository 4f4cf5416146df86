package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// unknownKeys returns one FieldError per mapping key in b that File has no
// field for, in file order, with its path and line. It walks the YAML tree
// against File's yaml tags, so it knows every key the decoder knows.
// Values under an unknown key are not looked into. A text the parser refuses
// yields none (the decoder reports it).
//
// A merge key ("<<: *anchor", "<<: {…}", "<<: [*a, *b]") brings its
// mapping's keys into the mapping it stands in: they are checked there, with
// that mapping's path, unless the anchor was already checked where it is
// written (so each typo is reported once). An anchor written where no key is
// checked (under an unknown key such as "x-defaults:") is thus checked where
// it is merged.
func unknownKeys(b []byte) Errors {
	f, err := parser.ParseBytes(b, 0)
	if err != nil {
		return nil
	}
	w := keyWalk{anchors: map[string]ast.Node{}, checked: map[string]bool{}}
	for _, d := range f.Docs {
		if d.Body != nil {
			collectAnchors(d.Body, w.anchors)
			w.walk(d.Body, reflect.TypeFor[File](), "")
		}
	}
	return w.errs
}

// keyWalk is one unknownKeys pass: the anchors by name, which of them were
// checked against a type already, and the mistakes so far.
type keyWalk struct {
	anchors map[string]ast.Node
	checked map[string]bool
	errs    Errors
}

// collectAnchors records every anchor under n by name (a later anchor of the
// same name replaces an earlier one, as aliases after it see).
func collectAnchors(n ast.Node, into map[string]ast.Node) {
	ast.Walk(anchorVisitor(into), n)
}

type anchorVisitor map[string]ast.Node

func (v anchorVisitor) Visit(n ast.Node) ast.Visitor {
	if a, ok := n.(*ast.AnchorNode); ok && a.Name != nil {
		v[a.Name.GetToken().Value] = a.Value
	}
	return v
}

func (w *keyWalk) walk(n ast.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if a, ok := n.(*ast.AnchorNode); ok && a.Name != nil {
		w.checked[a.Name.GetToken().Value] = true
	}
	n = unwrapNode(n)
	switch t.Kind() {
	case reflect.Struct:
		var pairs []*ast.MappingValueNode
		switch m := n.(type) {
		case *ast.MappingNode:
			pairs = m.Values
		case *ast.MappingValueNode:
			pairs = []*ast.MappingValueNode{m}
		}
		fields := yamlFields(t)
		for _, kv := range pairs {
			if _, merge := kv.Key.(*ast.MergeKeyNode); merge {
				w.merged(kv.Value, t, path)
				continue
			}
			key := keyName(kv.Key)
			p := key
			if path != "" {
				p = path + "." + key
			}
			ft, ok := fields[key]
			if !ok {
				w.errs = append(w.errs, FieldError{Path: p, Message: unknownKeyMessage(kv, fields)})
				continue
			}
			w.walk(kv.Value, ft, p)
		}
	case reflect.Slice:
		if s, ok := n.(*ast.SequenceNode); ok {
			for i, v := range s.Values {
				w.walk(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
}

// merged checks the value of a merge key in a mapping of type t at path: a
// mapping, an alias of one, or a list of those.
func (w *keyWalk) merged(v ast.Node, t reflect.Type, path string) {
	switch m := unwrapNode(v).(type) {
	case *ast.SequenceNode:
		for _, e := range m.Values {
			w.merged(e, t, path)
		}
	case *ast.AliasNode:
		if m.Value == nil {
			return
		}
		name := m.Value.GetToken().Value
		if target, ok := w.anchors[name]; ok && !w.checked[name] {
			w.checked[name] = true
			w.walk(target, t, path)
		}
	default:
		w.walk(v, t, path)
	}
}

// unwrapNode returns the value under an anchor (&a) or a tag (!!map).
func unwrapNode(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		default:
			return n
		}
	}
}

func keyName(k ast.MapKeyNode) string {
	if s, ok := unwrapNode(k).(*ast.StringNode); ok {
		return s.Value
	}
	return k.String()
}

func unknownKeyMessage(kv *ast.MappingValueNode, fields map[string]reflect.Type) string {
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	sort.Strings(known)
	msg := "unknown key"
	if tk := kv.Key.GetToken(); tk != nil && tk.Position != nil {
		msg += fmt.Sprintf(" (line %d)", tk.Position.Line)
	}
	return msg + "; the keys here are " + strings.Join(known, ", ")
}

// yamlFields maps each yaml key of struct type t to its field's type.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}
