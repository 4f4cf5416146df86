package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
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
// validate: call Validate. A text the YAML library panics on is an error too.
//
// The file is decoded by gopkg.in/yaml.v3, which follows the YAML merge key
// ("<<: *anchor", also a list of them): a key written beside "<<" wins over
// the merged one, wherever it stands. A key written twice in one mapping is
// an error.
func Parse(b []byte) (file *File, unknown Errors, err error) {
	// goccy/go-yaml v1.19.2, whose parser the unknown-key walk uses, panics
	// on some malformed texts (a tag before a broken sequence, found by
	// FuzzParse): a bad file is refused with an error, never a crash of
	// `sidecar run` or `sidecar validate`.
	defer func() {
		if r := recover(); r != nil {
			file, unknown, err = nil, nil, fmt.Errorf("parse config: the text is not valid YAML (the YAML parser failed: %v)", r)
		}
	}()
	var f File
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("parse config: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return &f, unknownKeys(b), nil
}
