package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Decode decodes the YAML text b into v, a non-nil pointer to a struct, and
// returns every mapping key of b that v's type has no field for (UnknownKey,
// in file order). An empty text, or one of comments only, leaves v as it is.
//
// The error, when not nil, stops the decode and names a line: a text that is
// not YAML ("line 1: did not find expected ',' or ']'"), a key that is a list
// or a mapping ("line 1, column 2: a key must be text, …"), a key written twice
// in one mapping ("line 2: mapping key \"name\" already defined at line 1"), a
// value of the wrong type ("line 2: cannot unmarshal !!map into []T"; every
// such value, joined by "; "), or a second document after "---" (a config is
// one document; the keys of a second one would be ignored). Unknown keys are
// returned only when err is nil.
//
// Merge keys follow the YAML merge key type as yaml.v3 reads it: "<<: *a",
// "<<: {…}" or "<<: [*a, *b]" give the mapping defaults, and a key written
// beside "<<" wins over a merged one, before or after it.
func Decode(b []byte, v any) ([]UnknownKey, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, fmt.Errorf("yamldoc: Decode needs a non-nil pointer, got %T", v)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, trim(err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, fmt.Errorf("line %d: a second YAML document; the file must hold one", documentLine(&next))
	case !errors.Is(err, io.EOF):
		return nil, trim(err)
	}
	if err := scalarKeys(&doc); err != nil {
		return nil, err
	}
	if err := doc.Decode(v); err != nil {
		return nil, trim(err)
	}
	return unknownKeys(&doc, rv.Type().Elem()), nil
}

// scalarKeys refuses a mapping key that is a list or a mapping ("? [a, b]:",
// "{[]: x}"): no config key is one, and yaml.v3 v3.0.1 panics on such a key
// beside a merge key (hash of an unhashable type, found by FuzzDecode). Each
// node is visited once: aliases are not followed, their anchors are in the
// tree where written.
func scalarKeys(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind == yaml.SequenceNode || k.Kind == yaml.MappingNode {
				return fmt.Errorf("line %d, column %d: a key must be text, not a list or a mapping", n.Content[i].Line, n.Content[i].Column)
			}
		}
	}
	for _, c := range n.Content {
		if err := scalarKeys(c); err != nil {
			return err
		}
	}
	return nil
}

// documentLine is the line of a document's first node (its "---" line when
// it has no content).
func documentLine(d *yaml.Node) int {
	if len(d.Content) > 0 && d.Content[0].Line > 0 {
		return d.Content[0].Line
	}
	return d.Line
}

// trim drops yaml.v3's "yaml: " prefix, and its "unmarshal errors:" header
// so that each value of the wrong type reads "line N: …", joined by "; ".
func trim(err error) error {
	if te, ok := errors.AsType[*yaml.TypeError](err); ok && len(te.Errors) > 0 {
		return errors.New(strings.Join(te.Errors, "; "))
	}
	return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
}
