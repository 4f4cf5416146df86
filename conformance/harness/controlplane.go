package harness

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ApproverToken is the approver token every harness Control Plane accepts.
const ApproverToken = "test-approver-token"

// CPOptions configures StartControlPlane.
type CPOptions struct {
	// Store is a store URL ("postgres://…"); empty means a fresh SQLite file.
	Store string
	// Sidecars maps Sidecar names to tokens; empty means {"test": "test-sidecar-token"}.
	Sidecars map[string]string
	// APIVersion is passed as --api-version (0 = leave the default).
	APIVersion *int
	// Addr to listen on; empty picks a free one.
	Addr string
	// ProcessingLease is the config's processing_lease ("" for the default).
	ProcessingLease string
	// TesterEmail is the tester approver's email ("" for none).
	TesterEmail string
	// MoreApprovers are appended to the approvers list, each a YAML flow
	// mapping such as "{name: lead, token: t2, groups: [dba]}".
	MoreApprovers []string
	// Extra is YAML appended to the config as written (top-level keys).
	Extra string
	// Env is added to the Control Plane's environment (KEY=value).
	Env []string
}

// ControlPlane is a running reference Control Plane.
type ControlPlane struct {
	*Process
	URL      string
	Sidecars map[string]string
	bin      string
	cfgPath  string
	args     []string
	env      []string
}

// StartControlPlane starts `controlplane serve` and waits for /healthz.
func StartControlPlane(t testing.TB, o CPOptions) *ControlPlane {
	t.Helper()
	bin := Binary(t, "controlplane")
	if o.Sidecars == nil {
		o.Sidecars = map[string]string{"test": "test-sidecar-token"}
	}
	if o.Addr == "" {
		o.Addr = FreeAddr(t)
	}
	dir := t.TempDir()
	if o.Store == "" {
		o.Store = "sqlite:" + filepath.Join(dir, "cp.db")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "listen: %s\nstore: %q\nsidecars:\n", o.Addr, o.Store)
	for name, tok := range o.Sidecars {
		fmt.Fprintf(&b, "  - {name: %s, token: %s}\n", name, tok)
	}
	email := ""
	if o.TesterEmail != "" {
		email = ", email: " + o.TesterEmail
	}
	fmt.Fprintf(&b, "approvers:\n  - {name: tester, token: %s%s}\n", ApproverToken, email)
	for _, a := range o.MoreApprovers {
		fmt.Fprintf(&b, "  - %s\n", a)
	}
	if o.ProcessingLease != "" {
		fmt.Fprintf(&b, "processing_lease: %s\n", o.ProcessingLease)
	}
	b.WriteString(o.Extra)
	cfg := filepath.Join(dir, "controlplane.yaml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "--config", cfg}
	if o.APIVersion != nil {
		args = append(args, "--api-version", fmt.Sprint(*o.APIVersion))
	}
	cp := &ControlPlane{URL: "http://" + o.Addr, Sidecars: o.Sidecars, bin: bin, cfgPath: cfg, args: args, env: o.Env}
	cp.Process = start(t, "controlplane", o.Env, bin, args...)
	cp.waitHealthy(t)
	return cp
}

// Restart starts the Control Plane again on the same address and store
// (after Stop or Kill; a running one is stopped first).
func (cp *ControlPlane) Restart(t testing.TB) {
	t.Helper()
	cp.Stop()
	cp.Process = start(t, "controlplane", cp.env, cp.bin, cp.args...)
	cp.waitHealthy(t)
}

func (cp *ControlPlane) waitHealthy(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(cp.URL + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("controlplane not healthy at %s:\n%s", cp.URL, cp.Output())
}

// CLI runs the controlplane CLI against this Control Plane with the approver
// token (e.g. cp.CLI(t, "approve", id)) and returns its output; it fails the
// test on a non-zero exit.
func (cp *ControlPlane) CLI(t testing.TB, args ...string) string {
	t.Helper()
	out, err := cp.TryCLI(args...)
	if err != nil {
		t.Fatalf("controlplane %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryCLI is CLI without failing the test.
func (cp *ControlPlane) TryCLI(args ...string) (string, error) {
	cmd := exec.Command(cp.bin, args...)
	cmd.Env = append(os.Environ(), "HOOP_CONTROLPLANE_URL="+cp.URL, "HOOP_APPROVER_TOKEN="+ApproverToken)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Approve approves id with the CLI.
func (cp *ControlPlane) Approve(t testing.TB, id string) { cp.CLI(t, "approve", id) }

// Reject rejects id with the CLI, with an optional reason.
func (cp *ControlPlane) Reject(t testing.TB, id, reason string) {
	if reason == "" {
		cp.CLI(t, "reject", id)
		return
	}
	cp.CLI(t, "reject", id, "--reason", reason)
}

// Revoke revokes id with the CLI.
func (cp *ControlPlane) Revoke(t testing.TB, id string) { cp.CLI(t, "revoke", id) }

// Review is the approver's view of one approval request.
type Review struct {
	ID             string     `json:"id"`
	Status         string     `json:"status"`
	Sidecar        string     `json:"sidecar"`
	ListenerName   string     `json:"listener_name"`
	ApprovalRule   string     `json:"approval_rule"`
	Statement      string     `json:"statement"`
	ClientIdentity string     `json:"client_identity"`
	DecidedAt      *time.Time `json:"decided_at"`
	ExpiresAt      *time.Time `json:"expires_at"`
	SidecarReads   int        `json:"sidecar_reads"`
	SettledBy      string     `json:"settled_by"`
}

// Review reads id through the approver API.
func (cp *ControlPlane) Review(t testing.TB, id string) Review {
	t.Helper()
	var r Review
	cp.approverGET(t, "/api/reviews/"+id, &r)
	return r
}

// Reviews lists every approval request, newest first.
func (cp *ControlPlane) Reviews(t testing.TB) []Review {
	t.Helper()
	var out struct {
		Reviews []Review `json:"reviews"`
	}
	cp.approverGET(t, "/api/reviews?limit=200", &out)
	return out.Reviews
}

func (cp *ControlPlane) approverGET(t testing.TB, path string, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", cp.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+ApproverToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// QuietReads waits until the Sidecar has not read id at this Control Plane
// (its per-request counter, sidecar_reads) for quiet, and returns the count
// then. It fails the test when the reads go on for 40 s: something still
// polls the approval (a wait mode Sidecar polls every 2 s).
func (cp *ControlPlane) QuietReads(t testing.TB, id string, quiet time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	last, since := cp.Review(t, id).SidecarReads, time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
		n := cp.Review(t, id).SidecarReads
		if n != last {
			last, since = n, time.Now()
			continue
		}
		if time.Since(since) >= quiet {
			return n
		}
	}
	t.Fatalf("the Sidecar kept reading approval %s (%d reads): its wait did not end", id, last)
	return 0
}

// ApproveAndExpectNoReads is a person approving id with the CLI after the
// Sidecar's wait for it ended, reads being the sidecar_reads count once
// they went quiet (QuietReads). It waits 5 s, 2.5 wait-mode poll intervals
// in which a wait still going on would have read and claimed the approval,
// and fails the test unless id is still APPROVED (not spent) with no more
// reads.
func (cp *ControlPlane) ApproveAndExpectNoReads(t testing.TB, id string, reads int) {
	t.Helper()
	cp.Approve(t, id)
	time.Sleep(5 * time.Second)
	if r := cp.Review(t, id); r.Status != "APPROVED" || r.SidecarReads != reads {
		t.Fatalf("after the approval: status %s, %d more reads; want APPROVED and none", r.Status, r.SidecarReads-reads)
	}
}
