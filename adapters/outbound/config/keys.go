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
func unknownKeys(b []byte) Errors {
	f, err := parser.ParseBytes(b, 0)
	if err != nil {
		return nil
	}
	var errs Errors
	for _, d := range f.Docs {
		if d.Body != nil {
			walkKeys(d.Body, reflect.TypeFor[File](), "", &errs)
		}
	}
	return errs
}

func walkKeys(n ast.Node, t reflect.Type, path string, errs *Errors) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
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
				continue // "<<: *anchor": the anchor's keys are checked where it is written
			}
			key := keyName(kv.Key)
			p := key
			if path != "" {
				p = path + "." + key
			}
			ft, ok := fields[key]
			if !ok {
				*errs = append(*errs, FieldError{Path: p, Message: unknownKeyMessage(kv, fields)})
				continue
			}
			walkKeys(kv.Value, ft, p, errs)
		}
	case reflect.Slice:
		if s, ok := n.(*ast.SequenceNode); ok {
			for i, v := range s.Values {
				walkKeys(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i), errs)
			}
		}
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
