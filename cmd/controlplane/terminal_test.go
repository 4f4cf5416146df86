package main

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
)

// The statement is written by the agent. An agent must not be able to make
// the approver's terminal show another statement than the one filed: list
// and show print control characters (ESC, CR, backspace…) as visible
// escapes, never raw.
func TestCLIPrintsNoRawControlCharactersFromAStatement(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	stmt := "DELETE /v1/prod/all\n\n\x1b[1A\x1b[2K\rDELETE /v1/test/row\b\x07\u009b2J"
	id := cp.File(servertest.DemoToken, "v1:esc", map[string]any{"statement": stmt,
		"client_identity": "agent\x1b]0;title\x07"}).JSON["id"].(string)
	t.Setenv(envURL, cp.URL)
	t.Setenv(envToken, servertest.ApproverToken)

	for _, args := range [][]string{{"show", id}, {"list"}} {
		code, out, errs := cli(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %q", args, code, errs)
		}
		if i := strings.IndexFunc(out, func(r rune) bool {
			return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0)
		}); i >= 0 {
			t.Errorf("%v printed a raw control character at %d: %q", args, i, out)
		}
	}
	_, out, _ := cli(t, "show", id)
	if !strings.Contains(out, "DELETE /v1/prod/all\n") || !strings.Contains(out, `\x1b[1A`) {
		t.Errorf("show does not print the statement with visible escapes:\n%s", out)
	}
}
