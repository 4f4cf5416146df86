package config

import (
	"testing"
)

// FuzzParse loads any bytes as a config file, then validates it and, when
// valid, turns it into listener settings. Every input ends in an error or
// settings, never a panic; a file Validate accepts yields one setting per
// listener.
func FuzzParse(f *testing.F) {
	protocols := Protocols{"postgres": {}, "http": {}, "grpc": {}}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			return
		}
		if errs := Validate(file, protocols); len(errs) > 0 {
			return
		}
		if got := Settings(file); len(got) != len(file.Listeners) {
			t.Fatalf("%d listeners gave %d settings:\n%s", len(file.Listeners), len(got), b)
		}
	})
}
