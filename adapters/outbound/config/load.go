package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/goccy/go-yaml"
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
// unknown key (line 7) …": a typo must not silently turn a rule off), and an
// error for a text that is not YAML or a value of the wrong type, which stops
// the parse. Unknown keys are returned, not raised, so that `sidecar
// validate` prints them together with Validate's mistakes. It does not
// validate: call Validate.
func Parse(b []byte) (*File, Errors, error) {
	var f File
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("parse config: %s", yaml.FormatError(err, false, true))
	}
	return &f, unknownKeys(b), nil
}
