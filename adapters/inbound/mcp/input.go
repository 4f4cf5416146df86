package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// Inputs, defaults and bounds of the tools (spec, "Tools"). A value out of
// bounds is refused with a tool error that names the bounds; it is never
// clamped, so the agent learns what it may send:
//
//	id               required, a non-empty string
//	timeout_seconds  integer 1..300, 60 when missing or null
//	limit            integer 1..200, 20 when missing or null (0 and 201 are refused)
//	status           one of the seven statuses (any case), every status when missing, null or ""
//
// Unknown arguments are ignored.

// inputError is a tool error about the arguments (IsError, the agent fixes its call).
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func badInput(format string, a ...any) error { return &inputError{fmt.Sprintf(format, a...)} }

type rawArgs map[string]json.RawMessage

func parseArgs(raw json.RawMessage) (rawArgs, error) {
	args := rawArgs{}
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return args, nil
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, badInput("arguments must be a JSON object")
	}
	return args, nil
}

// present returns the argument's JSON, or nil when it is missing or null.
func (a rawArgs) present(name string) json.RawMessage {
	v, ok := a[name]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil
	}
	return v
}

// id returns the required approval id.
func (a rawArgs) id() (string, error) {
	v := a.present("id")
	var s string
	if v == nil || json.Unmarshal(v, &s) != nil || strings.TrimSpace(s) == "" {
		return "", badInput("id is required: the approval id from the denial, as a string")
	}
	return strings.TrimSpace(s), nil
}

// intIn returns the integer argument name, def when missing, or an error
// naming the bounds lo..hi and the default.
func (a rawArgs) intIn(name string, def, lo, hi int) (int, error) {
	v := a.present(name)
	if v == nil {
		return def, nil
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, badInput("%s must be an integer from %d to %d (%d when omitted); got %s", name, lo, hi, def, string(v))
	}
	return int(f), nil
}

func (a rawArgs) timeoutSeconds() (int, error) {
	return a.intIn("timeout_seconds", app.DefaultWaitSeconds, 1, app.MaxWaitSeconds)
}

func (a rawArgs) limit() (int, error) {
	return a.intIn("limit", app.DefaultListLimit, 1, app.MaxListLimit)
}

// status returns the status filter ("" = every status).
func (a rawArgs) status() (domain.Status, error) {
	v := a.present("status")
	if v == nil {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", badInput("status must be a string, one of %s", statusList())
	}
	if s = strings.ToUpper(strings.TrimSpace(s)); s == "" {
		return "", nil
	}
	st := domain.ParseStatus(s)
	if !st.IsKnown() {
		return "", badInput("status must be one of %s, or omitted for every status; got %q", statusList(), s)
	}
	return st, nil
}

func statusList() string {
	names := make([]string, len(domain.KnownStatuses))
	for i, s := range domain.KnownStatuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// plausibleID reports whether id could be an approval id at all: ids are
// URL-path-safe (docs/control-plane-api.md), so one with other characters is
// answered as not found without asking the Control Plane.
func plausibleID(id string) bool {
	if len(id) > 128 || id == "." || id == ".." {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}
