// Package makerun follows `make run` as a new user does (issue 12): it starts
// `make run` on free ports (the HOOP_RUN_* variables of scripts/run.sh, so it
// never collides with a person's make run or with other tests), checks that a
// line names every long step before it starts and that the banner names the
// configs in use, then runs every step the banner prints, as printed, with
// the approval id of the step before in place of <id>, and checks what each
// one answers. Last it presses Ctrl-C and reads that everything stopped.
//
// The MCP inspector step runs `npx @modelcontextprotocol/inspector@0.15.0` in
// this folder, whose package.json pins the same version (scripts/deps.sh runs
// npm ci here), so npx takes it from node_modules and downloads nothing. 0.15.0
// is the last inspector without an engines field: later ones want Node >=
// 22.7.5 (2.x >= 22.19) and npm warns on Debian's Node 20.
package makerun

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
)

// output collects what make run prints.
type output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) { o.mu.Lock(); defer o.mu.Unlock(); return o.b.Write(p) }
func (o *output) String() string              { o.mu.Lock(); defer o.mu.Unlock(); return o.b.String() }

func (o *output) waitFor(t *testing.T, cmd *exec.Cmd, substr string, timeout time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if strings.Contains(o.String(), substr) {
			return
		}
		if cmd.ProcessState != nil {
			break
		}
	}
	t.Fatalf("make run did not print %q within %s:\n%s", substr, timeout, o.String())
}

func port(t *testing.T) string {
	_, p, _ := strings.Cut(harness.FreeAddr(t), ":")
	return p
}

// step is one printed command and what its answer must contain.
type step struct {
	prefix string   // the printed command starts with this
	want   []string // its output contains each ("<id>" is the current id)
}

// npmWarnings are what npm prints for an inspector that wants a newer Node
// than the machine's: the printed version must run without them.
var npmWarnings = []string{"EBADENGINE", "Unsupported engine", "npm warn"}

// expected lists the printed steps in order. A printed step that is not here,
// or one of these that is not printed, fails the test: change both together.
var expected = []step{
	{"export HOOP_APPROVER_TOKEN=", nil},
	{"curl -s http://127.0.0.1:HTTP/v1/invoices", []string{`"upstream":"example"`, `"method":"GET"`}},
	{"curl -si -X DELETE", []string{"HTTP/1.1 403 Forbidden", "X-Hoop-Approval-Id: "}},
	{"curl -s http://127.0.0.1:HTTP/.well-known/hoop/approvals/<id>", []string{`"next": "wait"`}},
	{"./bin/controlplane show <id>", []string{"id:", "<id>", "rule:", "http-writes", "statement:\nDELETE /v1/invoices/42"}},
	{"./bin/controlplane approve <id>", []string{"approved <id> (was PENDING)"}},
	{"curl -si -X DELETE", []string{"HTTP/1.1 200 OK", `"method":"DELETE"`}},
	{"export PGURL=", nil},
	{`psql "$PGURL" -c 'SELECT count(*) FROM hoop_demo'`, []string{"count", "     3\n(1 row)"}}, // make run's 3 rows
	{`psql "$PGURL" -c 'DROP TABLE hoop_demo'`, []string{"ERROR:  approval ", "call the MCP tool approval_wait"}},
	{"curl -s http://127.0.0.1:MCP/mcp", []string{`"status":"PENDING"`, `"next":"wait"`, `"id":"<id>"`}},
	{`curl -sN http://127.0.0.1:MCP/mcp -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"approval_wait"`,
		// progress every 2 s on the SSE stream, then the answer at timeout_seconds (5)
		[]string{`"method":"notifications/progress","params":{"progressToken":1`, "(0 s of 5 s)", "(2 s of 5 s)", "(4 s of 5 s)",
			`"status":"PENDING"`, `"timed_out":true`, `"waited_seconds":5`, `"id":"<id>"`}},
	{"npx @modelcontextprotocol/inspector@0.15.0 --cli http://127.0.0.1:MCP/mcp --method tools/call --tool-name approval_wait --tool-arg id=<id> timeout_seconds=5",
		[]string{`"structuredContent"`, `"status": "PENDING"`, `"timed_out": true`, `"waited_seconds": 5`, `"id": "<id>"`}},
	{"claude mcp add", nil}, // Claude Code is not on this machine: checked for its URL only
	{"./bin/controlplane approve <id>", []string{"approved <id> (was PENDING)"}},
	{`psql "$PGURL" -c 'DROP TABLE hoop_demo'`, []string{"DROP TABLE"}},
	{`psql "$PGURL" -c 'SELECT count(*) FROM hoop_demo'`, []string{`ERROR:  relation "hoop_demo" does not exist`}}, // the DROP ran
}

var (
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	stepRE  = regexp.MustCompile(`^  (export |curl |psql |\./bin/|npx |claude )`)
	comment = regexp.MustCompile(`\s+#\s.*$`)
)

func TestMakeRunPrintsItsStepsAndTheyWork(t *testing.T) {
	root := harness.RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "conformance", "makerun", "node_modules", ".bin", "mcp-inspector")); err != nil {
		t.Fatalf("the MCP inspector is not installed in conformance/makerun (run make deps): %v", err)
	}
	db, err := url.Parse(harness.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	ports := map[string]string{"CP": port(t), "ADMIN": port(t), "MCP": port(t), "HTTP": port(t), "UPSTREAM": port(t), "PG": port(t)}
	runDir := t.TempDir()
	env := append(os.Environ(),
		"HOOP_RUN_CP_PORT="+ports["CP"], "HOOP_RUN_ADMIN_PORT="+ports["ADMIN"], "HOOP_RUN_MCP_PORT="+ports["MCP"],
		"HOOP_RUN_HTTP_PORT="+ports["HTTP"], "HOOP_RUN_UPSTREAM_PORT="+ports["UPSTREAM"], "HOOP_RUN_PG_PORT="+ports["PG"],
		"HOOP_RUN_PG_UPSTREAM="+db.Host, "HOOP_RUN_PG_DB="+strings.TrimPrefix(db.Path, "/"), "HOOP_RUN_DIR="+runDir,
		// The printed steps are run by this test, not a person's shell.
		"HOOP_APPROVER_TOKEN=", "HOOP_CONTROLPLANE_URL=", "PGURL=", "MCP_CATALOG_PATH="+filepath.Join(runDir, "inspector.json"),
	)

	var out output
	cmd := exec.Command("make", "--no-print-directory", "run")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = root, env, &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Ctrl-C goes to the whole group, as in a terminal
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if t.Failed() {
			for _, f := range []string{"controlplane.log", "sidecar.log", "upstream.log"} {
				b, _ := os.ReadFile(filepath.Join(runDir, f))
				t.Logf("---- %s ----\n%s", f, b)
			}
		}
	})
	out.waitFor(t, cmd, "Ctrl-C stops everything.", 15*time.Minute) // the first build compiles PostgreSQL's parser
	printed := out.String()

	// A line names each long step before it starts.
	before, banner, _ := strings.Cut(printed, "hoop Sidecar is up.")
	for _, line := range []string{
		"==> building ./bin/sidecar (the first build compiles PostgreSQL's parser",
		"==> building ./bin/controlplane",
		"==> creating table hoop_demo (3 rows) in database " + strings.TrimPrefix(db.Path, "/"),
		"==> starting the Control Plane on 127.0.0.1:" + ports["CP"],
		"==> starting the example upstream on 127.0.0.1:" + ports["UPSTREAM"] + " and the Sidecar",
	} {
		if !strings.Contains(before, line) {
			t.Errorf("make run printed no line %q before the banner:\n%s", line, before)
		}
	}
	// The banner names the configs in use, how to sign in, and make clean.
	for _, want := range []string{
		"Configs         Sidecar " + runDir + "/config.yaml, Control Plane " + runDir + "/controlplane.yaml",
		"http://127.0.0.1:" + ports["CP"] + "   approver web page: sign in as dev, password dev-approver-token",
		`the page says "Signed in as dev"`,
		"make clean starts from an empty Control Plane",
		"The demo logs in to PostgreSQL as postgres without a password",
		// wait mode, which the steps do not run (it holds curl until a decision)
		"Wait mode (a held request without X-Hoop-Approval) waits, up to 10 min, for a decision on the\napprover web page (or approve); curl shows nothing meanwhile",
		"\n    curl -si -X DELETE http://127.0.0.1:" + ports["HTTP"] + "/v1/invoices/7\n",
	} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner lacks %q:\n%s", want, banner)
		}
	}
	for name, p := range map[string]string{"the sidecar": runDir + "/config.yaml", "the control plane": runDir + "/controlplane.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil || strings.Contains(string(b), ":8080") || strings.Contains(string(b), ".run/") {
			t.Errorf("%s's config %s still has a default address or .run/ (%v):\n%s", name, p, err, b)
		}
	}
	// The web page signs "dev" in, as the banner says.
	page := run(t, root, nil, "curl -s -u dev:dev-approver-token http://127.0.0.1:"+ports["CP"]+"/")
	if !regexp.MustCompile(`Signed in as\s*(<[^>]+>\s*)*dev\b`).MatchString(page) {
		t.Errorf("the web page does not say who signed in:\n%.2000s", page)
	}

	steps := printedSteps(banner)
	if len(steps) != len(expected) {
		t.Errorf("make run printed %d steps, the test expects %d:\n%s", len(steps), len(expected), strings.Join(steps, "\n"))
	}
	var exports []string
	var id string
	for i, s := range steps {
		if i >= len(expected) {
			break
		}
		e := expected[i]
		prefix := e.prefix
		for k, p := range ports {
			prefix = strings.ReplaceAll(prefix, "127.0.0.1:"+k+"/", "127.0.0.1:"+p+"/")
		}
		prefix = strings.ReplaceAll(prefix, "<id>", id)
		line := strings.ReplaceAll(s, "<id>", id)
		if !strings.HasPrefix(line, prefix) {
			t.Fatalf("step %d is %q, want it to start with %q", i+1, line, prefix)
		}
		switch {
		case strings.HasPrefix(line, "export "):
			exports = append(exports, line)
			continue
		case strings.HasPrefix(line, "claude "):
			if !strings.HasSuffix(line, "http://127.0.0.1:"+ports["MCP"]+"/mcp") {
				t.Errorf("the claude step names another URL: %q", line)
			}
			continue
		}
		dir := root
		if strings.HasPrefix(line, "npx ") {
			dir = filepath.Join(root, "conformance", "makerun")
		}
		got := run(t, dir, exports, line)
		t.Logf("step %d: %s\n%.300s", i+1, line, got)
		for _, w := range e.want {
			w = strings.ReplaceAll(w, "<id>", id)
			if !strings.Contains(got, w) {
				t.Errorf("step %d %q: the answer lacks %q:\n%s", i+1, line, w, got)
			}
		}
		for _, w := range npmWarnings {
			if strings.HasPrefix(line, "npx ") && strings.Contains(got, w) {
				t.Errorf("step %d %q: the answer has %q:\n%s", i+1, line, w, got)
			}
		}
		if m := uuidRE.FindString(got); m != "" && !strings.Contains(line, m) {
			id = m // a new approval id: the next steps use it
		}
	}

	// Ctrl-C: everything stops, and make run says so.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("make run did not stop on Ctrl-C:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Stopped the Sidecar, the example upstream and the Control Plane.") {
		t.Errorf("make run did not say everything stopped:\n%s", out.String())
	}
	for _, p := range []string{ports["CP"], ports["HTTP"], ports["PG"], ports["MCP"]} {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+p, time.Second); err == nil {
			c.Close()
			t.Errorf("something still listens on 127.0.0.1:%s after Ctrl-C", p)
		}
	}
}

// printedSteps returns the banner's commands, trailing comments removed.
func printedSteps(banner string) []string {
	var steps []string
	sc := bufio.NewScanner(strings.NewReader(banner))
	for sc.Scan() {
		if l := sc.Text(); stepRE.MatchString(l) {
			steps = append(steps, strings.TrimSpace(comment.ReplaceAllString(l, "")))
		}
	}
	return steps
}

// run runs one printed command with bash in dir, after the printed exports,
// and returns what it printed (stdout and stderr). A step may fail (psql's
// ERROR exits 1): the test reads its answer.
func run(t *testing.T, dir string, exports []string, line string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := strings.Join(append(append([]string{}, exports...), line), "\n")
	c := exec.CommandContext(ctx, "bash", "-c", script)
	c.Dir = dir
	c.Env = append(os.Environ(), "HOOP_APPROVER_TOKEN=", "HOOP_CONTROLPLANE_URL=", "PGURL=",
		"MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "inspector.json"))
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	_ = c.Run()
	return b.String()
}
