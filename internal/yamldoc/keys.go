package yamldoc

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// UnknownKey is one mapping key that the decoded type has no field for.
type UnknownKey struct {
	// Path is the key's path from the top of the file, e.g.
	// "listeners[0].upstrem".
	Path string
	// Key is the key as written ("" for an empty one, "~" or "null" for a
	// null one: yaml.v3 drops their values, so they are unknown too).
	Key string
	// Line and Column are where the key starts, both from 1.
	Line, Column int
	// Known lists the keys the mapping may hold, sorted.
	Known []string
}

// Hint names the keys that exist where u stands: "the keys here are a, b, c".
func (u UnknownKey) Hint() string { return "the keys here are " + strings.Join(u.Known, ", ") }

// unknownKeys walks the document d against type t (the decoded struct).
// Values under an unknown key are not looked into.
//
// An anchored mapping is checked where it is written, once. An alias
// ("upstream_tls: *tls") or a merge key ("<<: *defaults", "<<: {…}", "<<:
// [*a, *b]") brings its mapping's keys into the mapping it stands in: an
// anchor that was not checked where it is written (it stands under an
// unknown key such as "x-defaults:") is checked where it is first used,
// with that path, so each typo is reported once and every anchor is walked
// at most once (no alias can make the walk grow).
func unknownKeys(d *yaml.Node, t reflect.Type) []UnknownKey {
	w := keyWalk{checked: map[*yaml.Node]bool{}}
	for _, n := range d.Content {
		w.walk(n, t, "")
	}
	return w.out
}

type keyWalk struct {
	checked map[*yaml.Node]bool
	out     []UnknownKey
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

func (w *keyWalk) walk(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil || w.checked[n.Alias] {
			return
		}
		n = n.Alias
	}
	if n.Anchor != "" {
		w.checked[n] = true
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return // it reads its own keys
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return // the decoder reports the type
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if isMerge(k) {
				w.merged(val, t, path)
				continue
			}
			name, ok := keyName(k)
			if !ok {
				continue // a key that is not a scalar: the decoder refuses it
			}
			p := join(path, name)
			if name == "" {
				p = join(path, `""`) // an empty key ("": x, or none before the colon): its value is dropped
			}
			ft, ok := fields[name]
			if !ok {
				w.out = append(w.out, UnknownKey{Path: p, Key: name, Line: k.Line, Column: k.Column, Known: sortedKeys(fields)})
				continue
			}
			w.walk(val, ft, p)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if isMerge(n.Content[i]) {
				w.merged(n.Content[i+1], t, path)
				continue
			}
			if name, ok := keyName(n.Content[i]); ok {
				w.walk(n.Content[i+1], t.Elem(), join(path, name))
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, e := range n.Content {
			w.walk(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

// merged checks the value of a merge key in a mapping of type t at path: a
// mapping, an alias of one, or a list of those.
func (w *keyWalk) merged(v *yaml.Node, t reflect.Type, path string) {
	if v.Kind == yaml.SequenceNode {
		for _, e := range v.Content {
			if e.Kind != yaml.SequenceNode { // a list in a list is no merge value: the decoder refuses it
				w.merged(e, t, path)
			}
		}
		return
	}
	w.walk(v, t, path)
}

// isMerge reports whether k is the merge key "<<" (yaml.v3 resolves it to
// the !!merge tag unless it is quoted or tagged otherwise).
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge"
}

// keyName is a scalar key's text, through an alias.
func keyName(k *yaml.Node) (string, bool) {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	return k.Value, k.Kind == yaml.ScalarNode
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// yamlFields maps each yaml key of struct type t to its field's type; the
// fields of an ",inline" struct are t's own.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",inline,") && f.Type.Kind() == reflect.Struct {
			for k, v := range yamlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func sortedKeys(m map[string]reflect.Type) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
