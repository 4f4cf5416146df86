package config

import (
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
)

const minimal = "sidecar: s\n"

func TestLimitsParseWithUnits(t *testing.T) {
	f, unknown, err := Parse([]byte(minimal + "limits: {held_bytes: 256MiB, header_bytes: 32KiB, body_read_timeout: 30s}\n"))
	if err != nil || len(unknown) > 0 {
		t.Fatal(err, unknown)
	}
	if errs := Validate(f, nil); len(errs) > 0 {
		t.Fatal(errs)
	}
	got := LimitsOf(f)
	want := app.Limits{HeldBytes: 256 << 20, HeaderBytes: 32 << 10, BodyReadTimeout: 30 * time.Second}
	if got != want {
		t.Fatalf("LimitsOf = %+v, want %+v", got, want)
	}
	if none, _, _ := Parse([]byte(minimal)); LimitsOf(none).WithDefaults() != (app.Limits{}).WithDefaults() {
		t.Fatal("no limits block does not mean the defaults")
	}
}

func TestLimitsRefuseWrongValues(t *testing.T) {
	for yaml, want := range map[string]string{
		"limits: {held_bytes: lots}":        "limits.held_bytes: \"lots\" is not a size",
		"limits: {held_bytes: 1MiB}":        "limits.held_bytes: \"1MiB\" is less than 8MiB",
		"limits: {header_bytes: 100}":       "limits.header_bytes: \"100\" is not between 4KiB and 1MiB",
		"limits: {header_bytes: 16MiB}":     "limits.header_bytes: \"16MiB\" is not between 4KiB and 1MiB",
		"limits: {body_read_timeout: 0s}":   "limits.body_read_timeout: must be more than 0s",
		"limits: {body_read_timeout: soon}": "limits.body_read_timeout: \"soon\" is not a duration",
	} {
		f, _, err := Parse([]byte(minimal + yaml + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if errs := Validate(f, nil); !strings.Contains(errs.Error(), want) {
			t.Errorf("%s: errors %q, want %q", yaml, errs, want)
		}
	}
	if _, unknown, _ := Parse([]byte(minimal + "limits: {held_byte: 8MiB}\n")); len(unknown) == 0 ||
		!strings.Contains(unknown.Error(), "limits.held_byte") {
		t.Errorf("a misspelt limits key: %v", unknown)
	}
}
