package core

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// A normal start of what `make run` starts (scripts/run.sh: the reference
// Control Plane, the example upstream, a Sidecar from examples/config.yaml),
// on free ports instead of the fixed ones, logs at most 15 lines at the
// default level in all, and those lines say what listens where and which
// Control Plane the Sidecar uses (issue 13: the DI framework's events used to
// fill ~57 lines at INFO).
func TestNormalStartLogsAHandfulOfLines(t *testing.T) {
	root := harness.RepoRoot(t)
	example, err := os.ReadFile(filepath.Join(root, "examples", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The example's fixed addresses, each moved to a free port.
	addrs := map[string]string{}
	config := string(example)
	for _, fixed := range []string{"127.0.0.1:8080", "127.0.0.1:9090", "127.0.0.1:8765", "127.0.0.1:18080",
		"127.0.0.1:18081", "127.0.0.1:15432"} {
		if !strings.Contains(config, fixed) {
			t.Fatalf("examples/config.yaml no longer uses %s; update this test", fixed)
		}
		addrs[fixed] = harness.FreeAddr(t)
		config = strings.ReplaceAll(config, fixed+" ", addrs[fixed]+" ")
		config = strings.ReplaceAll(config, fixed+"}", addrs[fixed]+"}")
		config = strings.ReplaceAll(config, fixed+"\n", addrs[fixed]+"\n")
	}
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	if !strings.Contains(config, ".run/audit.jsonl") {
		t.Fatal("examples/config.yaml no longer writes .run/audit.jsonl; update this test")
	}
	config = strings.ReplaceAll(config, ".run/audit.jsonl", audit)

	// The same order as scripts/run.sh.
	cp := harness.StartControlPlane(t, harness.CPOptions{Addr: addrs["127.0.0.1:8080"],
		Sidecars: map[string]string{"demo": "dev-sidecar-token"}})
	upstream := harness.Start(t, "upstream", nil, harness.Build(t, "./examples/upstream"), "-listen", addrs["127.0.0.1:18081"])
	sc := harness.StartSidecar(t, harness.SidecarOptions{Config: config, Token: "dev-sidecar-token"})
	resp, err := http.Get("http://" + addrs["127.0.0.1:9090"] + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz: %s", resp.Status)
	}
	upstream.WaitFor(t, "example upstream listening", 10*time.Second)
	time.Sleep(time.Second) // lines still in the pipes

	var all []string
	for _, p := range []*harness.Process{cp.Process, upstream, sc.Process} {
		for _, l := range strings.Split(strings.TrimSpace(p.Output()), "\n") {
			if l != "" {
				all = append(all, p.Name+": "+l)
			}
		}
	}
	if len(all) > 15 {
		t.Fatalf("a normal start logged %d lines, want at most 15:\n%s", len(all), strings.Join(all, "\n"))
	}
	out := sc.Output()
	for _, want := range []string{
		"url=" + cp.URL,                                  // the Control Plane it uses
		"listen=" + addrs["127.0.0.1:18080"],             // listener billing-api
		"listen=" + addrs["127.0.0.1:15432"],             // listener payments
		"url=http://" + addrs["127.0.0.1:8765"] + "/mcp", // the MCP server
		"listen=" + addrs["127.0.0.1:9090"],              // admin
		"upstream=http://" + addrs["127.0.0.1:18081"],    // billing-api's upstream
		"sidecar ready",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the Sidecar's start log does not say %q:\n%s", want, out)
		}
	}
	if !strings.Contains(cp.Output(), "url="+cp.URL) {
		t.Errorf("the Control Plane's start log does not name its URL:\n%s", cp.Output())
	}
	t.Logf("a normal start logged %d lines:\n%s", len(all), strings.Join(all, "\n"))
}
