package config

import (
	"bytes"
	"fmt"
	"os"

	"github.com/goccy/go-yaml"
)

// Load reads and parses the config file at path. Unknown keys are an error
// (a typo must not silently disable a rule). It does not validate: call
// Validate.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return Parse(b)
}

// Parse parses config bytes (see Load).
func Parse(b []byte) (*File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(b), yaml.DisallowUnknownField())
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse config: %s", yaml.FormatError(err, false, true))
	}
	return &f, nil
}
