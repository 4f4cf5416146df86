package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
	"github.com/hoophq/sidecar/internal/testlog"
	"github.com/hoophq/sidecar/internal/version"
)

var t0 = time.Date(2026, 9, 29, 14, 2, 11, 0, time.UTC)

// cli runs the controlplane command with args and returns exit code, stdout, stderr.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestApproveWithTheCLI(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	id := cp.File(servertest.DemoToken, "v1:aa", nil).JSON["id"].(string)
	cp.Clock.Set(t0.Add(42 * time.Second))

	code, out, errs := cli(t, "approve", id, "--url", cp.URL, "--token", servertest.ApproverToken)
	if code != 0 || out != "approved "+id+" (was PENDING)\n" {
		t.Fatalf("approve: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	r := cp.Do("GET", "/api/sidecars/reviews/"+id, servertest.DemoToken, nil)
	if r.Status != 200 || r.JSON["status"] != "APPROVED" || r.JSON["decided_at"] != "2026-09-29T14:02:53Z" {
		t.Fatalf("read back: %d %s", r.Status, r.Raw)
	}
	if o := cp.Do("GET", "/api/sidecars/reviews/"+id, servertest.OtherToken, nil); o.Status != 404 || o.JSON["code"] != "not_found" {
		t.Fatalf("another Sidecar reads it: %d %s", o.Status, o.Raw)
	}

	code, out, errs = cli(t, "approve", id, "--url", cp.URL, "--token", servertest.ApproverToken)
	if code != 1 || out != "" || !strings.Contains(errs, "it is APPROVED (approve needs PENDING)") || !strings.Contains(errs, "HTTP 409") {
		t.Fatalf("approve twice: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = cli(t, "revoke", id, "--url", cp.URL, "--token", servertest.ApproverToken)
	if code != 0 || out != "revoked "+id+" (was APPROVED)\n" {
		t.Fatalf("revoke: %d %q", code, out)
	}
}

func TestRejectListShowWithEnv(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	cp.Clock.Set(t0)
	id := cp.File(servertest.DemoToken, "v1:aa", map[string]any{"statement": "DROP TABLE\n  invoices"}).JSON["id"].(string)
	other := cp.File(servertest.OtherToken, "v1:bb", nil).JSON["id"].(string)
	t.Setenv(envURL, cp.URL)
	t.Setenv(envToken, servertest.ApproverToken)

	code, out, errs := cli(t, "reject", id, "--reason", "not during the freeze")
	if code != 0 || out != "rejected "+id+" (was PENDING): \"not during the freeze\"\n" {
		t.Fatalf("reject: %d %q %q", code, out, errs)
	}
	code, out, _ = cli(t, "list")
	if code != 0 || !strings.Contains(out, "STATEMENT") || !strings.Contains(out, id) || !strings.Contains(out, other) ||
		!strings.Contains(out, "DROP TABLE invoices") {
		t.Fatalf("list: %d\n%s", code, out)
	}
	code, out, _ = cli(t, "list", "--status", "rejected", "--limit", "5")
	if code != 0 || !strings.Contains(out, id) || strings.Contains(out, other) {
		t.Fatalf("list --status rejected: %d\n%s", code, out)
	}
	code, out, _ = cli(t, "list", "--status", "EXPIRED")
	if code != 0 || out != "no approval requests\n" {
		t.Fatalf("empty list: %d %q", code, out)
	}
	code, _, errs = cli(t, "list", "--limit", "999")
	if code != 1 || !strings.Contains(errs, "limit") || !strings.Contains(errs, "invalid") {
		t.Fatalf("bad limit: %d %q", code, errs)
	}
	code, out, _ = cli(t, "show", id)
	for _, s := range []string{"status:", "REJECTED", "sidecar:", "demo", "rejection_reason:", "not during the freeze",
		"decided_by:", "alice", "statement:\nDROP TABLE\n  invoices\n"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Fatalf("show lacks %q: %d\n%s", s, code, out)
		}
	}
	code, out, _ = cli(t, "show", id, "--json")
	if code != 0 || !strings.Contains(out, `"sidecar_reads": 0`) {
		t.Fatalf("show --json: %d\n%s", code, out)
	}
	code, _, errs = cli(t, "show", "no-such-id")
	if code != 1 || !strings.Contains(errs, "not_found") {
		t.Fatalf("show unknown: %d %q", code, errs)
	}
}

func TestClientErrorsAreClear(t *testing.T) {
	cp := servertest.Start(t, "sqlite", nil)
	t.Setenv(envToken, "")
	t.Setenv(envURL, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"approve", "x", "--url", cp.URL}, "no approver token: set HOOP_APPROVER_TOKEN (or pass --token)"},
		{[]string{"approve", "x", "--url", cp.URL, "--token", "wrong"}, "refused the approver token"},
		{[]string{"approve", "x", "--url", cp.URL, "--token", servertest.DemoToken}, "refused the approver token"},
		{[]string{"approve", "--url", cp.URL, "--token", "t"}, "accepts 1 arg(s), received 0"},
		{[]string{"list", "--url", "ftp://x", "--token", "t"}, "is not an http(s) URL"},
		{[]string{"list", "--url", "http://127.0.0.1:1", "--token", "t"}, "cannot reach the Control Plane at http://127.0.0.1:1"},
		{[]string{"list", "--url", cp.URL + "/nothing", "--token", "t"}, "not a Control Plane API answer"},
		{[]string{"serve"}, "serve needs a config file: controlplane serve --config FILE (or controlplane serve FILE)"},
		{[]string{"serve", "--config", "/nonexistent.yaml"}, "config: open /nonexistent.yaml"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		code, out, errs := cli(t, c.args...)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errs, c.want)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, c := range []string{"", "serve", "approve", "reject", "revoke", "reopen", "list", "show", "version"} {
		args := []string{"--help"}
		if c != "" {
			args = []string{c, "--help"}
		}
		code, out, _ := cli(t, args...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Fatalf("%s --help: %d\n%s", c, code, out)
		}
	}
	t.Setenv(envToken, "secret-token-in-env")
	if _, out, _ := cli(t, "approve", "--help"); strings.Contains(out, "secret-token-in-env") {
		t.Fatal("--help prints the token from the environment")
	}
	code, out, _ := cli(t, "version")
	if code != 0 || out != "hoop controlplane "+version.Version+" (Control Plane API 1)\n" {
		t.Fatalf("version: %d %q", code, out)
	}
}

// The root help shows no token on the command line (it would show in ps):
// it says the client commands read HOOP_APPROVER_TOKEN.
func TestRootHelpKeepsTheTokenOffTheCommandLine(t *testing.T) {
	_, out, _ := cli(t, "--help")
	if strings.Contains(out, "--token $") || strings.Contains(out, "--token "+"$"+envToken) {
		t.Fatalf("--help suggests a token on the command line:\n%s", out)
	}
	for _, want := range []string{"read the approver token from\n" + envToken, "docs/controlplane.md", "completion"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
}

// completion is there, as on the Sidecar (cobra's own).
func TestCompletion(t *testing.T) {
	code, out, errs := cli(t, "completion", "bash")
	if code != 0 || !strings.Contains(out, "__start_controlplane") {
		t.Fatalf("completion bash: %d %q %q", code, out[:min(len(out), 200)], errs)
	}
}

func TestServeFromConfigFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cp.yaml")
	db := filepath.Join(dir, "cp.db")
	if err := os.WriteFile(cfg, []byte("listen: 127.0.0.1:0\nstore: sqlite:"+db+
		"\nsidecars: [{name: demo, token: dev-sidecar-token}]\napprovers: [{name: dev, token: dev-approver-token}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--config", "-config"} {
		t.Run(flag, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var logs testlog.Buffer
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, []string{"serve", flag, cfg, "--api-version", "0", "--log-level", "debug"}, io.Discard, &logs)
			}() // health probes log at debug
			re := regexp.MustCompile(`msg="control plane listening" addr=(127\.0\.0\.1:\d+)`)
			var addr string
			for deadline := time.Now().Add(20 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if m := re.FindStringSubmatch(logs.String()); m != nil {
					addr = m[1]
				}
			}
			if addr == "" {
				cancel()
				t.Fatalf("serve never said where it listens:\n%s", logs.String())
			}
			if !strings.Contains(logs.String(), "store=sqlite") {
				t.Fatalf("serve does not log its store:\n%s", logs.String())
			}
			resp, err := http.Get("http://" + addr + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("X-Hoop-Api-Version") != "" {
				t.Fatalf("healthz: %d, api version %q (want it left out)", resp.StatusCode, resp.Header.Get("X-Hoop-Api-Version"))
			}
			cancel()
			if code := <-done; code != 0 {
				t.Fatalf("serve exit %d:\n%s", code, logs.String())
			}
			if !strings.Contains(logs.String(), `path=/healthz status=200`) {
				t.Fatalf("no request log line:\n%s", logs.String())
			}
		})
	}
}
