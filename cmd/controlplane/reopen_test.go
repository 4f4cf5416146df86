package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
)

// controlplane reopen ID: prints the refused id, its status and the new
// PENDING request; show names both ends; reopening twice, a PENDING request
// and an unknown id exit 1 with the API's reason.
func TestReopenWithTheCLI(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	id := cp.File(servertest.DemoToken, "v1:aa", nil).JSON["id"].(string)
	t.Setenv(envURL, cp.URL)
	t.Setenv(envToken, servertest.ApproverToken)
	if code, _, errs := cli(t, "reject", id, "--reason", "not now"); code != 0 {
		t.Fatalf("reject: %s", errs)
	}
	cp.Clock.Set(t0.Add(time.Hour))

	code, out, errs := cli(t, "reopen", id)
	found := cp.File(servertest.DemoToken, "v1:aa", nil)
	newID, _ := found.JSON["id"].(string)
	if code != 0 || newID == id || found.JSON["status"] != "PENDING" ||
		out != "reopened "+id+" (was REJECTED) as "+newID+" (PENDING)\n" {
		t.Fatalf("reopen: exit %d, stdout %q, stderr %q; the statement then finds %s", code, out, errs, found.Raw)
	}
	if code, out, _ = cli(t, "show", id); code != 0 || !regexp.MustCompile(`reopened_as:\s+`+newID).MatchString(out) ||
		!strings.Contains(out, "REJECTED") || !strings.Contains(out, "not now") {
		t.Fatalf("show of the rejected request:\n%s", out)
	}
	if code, out, _ = cli(t, "show", newID); code != 0 || !regexp.MustCompile(`reopened_from:\s+`+id).MatchString(out) ||
		!regexp.MustCompile(`reopened_by:\s+alice`).MatchString(out) || !strings.Contains(out, "PENDING") {
		t.Fatalf("show of the reopened request:\n%s", out)
	}

	for _, c := range []struct{ id, want string }{
		{id, "cannot reopen approval " + id + ": it was reopened already as " + newID + " (conflict, HTTP 409)"},
		{newID, "cannot reopen approval " + newID + ": it is PENDING (reopen needs REJECTED or REVOKED) (conflict, HTTP 409)"},
		{"no-such-id", "not_found, HTTP 404"},
	} {
		code, out, errs := cli(t, "reopen", c.id)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) {
			t.Fatalf("reopen %s: exit %d, stdout %q, stderr %q; want %q", c.id, code, out, errs, c.want)
		}
	}
}
