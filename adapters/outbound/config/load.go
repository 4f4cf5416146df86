package config

import (
	"fmt"
	"os"

	"github.com/hoophq/sidecar/internal/yamldoc"
)

// Load reads and parses the config file at path (see Parse).
func Load(path string) (*File, Errors, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read config: %w", err)
	}
	return Parse(b)
}

// Parse parses config bytes. It returns the file, every key the file format
// does not have (each with its path and line, e.g. "listeners[0].upstrem:
// unknown key (line 7); the keys here are …": a typo must not silently turn a
// rule off), and an error for what stops the parse: a text that is not YAML,
// a key written twice in one mapping, a value of the wrong type, or a second
// document after "---" (each error names its line and starts "parse config:
// "). Unknown keys are returned, not raised, so that `sidecar validate`
// prints them together with Validate's mistakes. It does not validate: call
// Validate.
//
// The text is read by internal/yamldoc (gopkg.in/yaml.v3), as the Control
// Plane's config is: a merge key ("<<: *anchor", also a list of them) gives
// defaults, and a key written beside "<<" wins over the merged one, wherever
// it stands (docs/config.md, "YAML").
func Parse(b []byte) (*File, Errors, error) {
	var f File
	keys, err := yamldoc.Decode(b, &f)
	if err != nil {
		return nil, nil, fmt.Errorf("parse config: %w", err)
	}
	var unknown Errors
	for _, k := range keys {
		unknown = append(unknown, FieldError{Path: k.Path, Message: fmt.Sprintf("unknown key (line %d); %s", k.Line, k.Hint())})
	}
	return &f, unknown, nil
}
