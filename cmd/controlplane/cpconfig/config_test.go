package cpconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseDefaultsAndTokens(t *testing.T) {
	dir := t.TempDir()
	tf := filepath.Join(dir, "tok")
	if err := os.WriteFile(tf, []byte("file-token-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CP_TEST_TOKEN", "env-token-1")
	c, err := Parse([]byte(`
sidecars:
  - {name: demo, token: dev-sidecar-token}
  - {name: other, token_env: CP_TEST_TOKEN}
approvers:
  - {name: alice, token_file: ` + tf + `}
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != DefaultListen || c.Store != DefaultStore {
		t.Fatalf("defaults: %q %q", c.Listen, c.Store)
	}
	if c.Sidecars["dev-sidecar-token"] != "demo" || c.Sidecars["env-token-1"] != "other" {
		t.Fatalf("sidecars: %v", c.Sidecars)
	}
	if c.Approvers["file-token-1"] != "alice" {
		t.Fatalf("approvers: %v", c.Approvers)
	}
	if c.ProcessingLease != time.Minute {
		t.Fatalf("processing_lease default %s, want 1m", c.ProcessingLease)
	}
	for v, want := range map[string]time.Duration{"0s": 0, "90s": 90 * time.Second, "3s": 3 * time.Second} {
		c, err := Parse([]byte("processing_lease: " + v + "\nsidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2}]"))
		if err != nil || c.ProcessingLease != want {
			t.Fatalf("processing_lease %s: %v %v, want %s", v, c, err, want)
		}
	}
}

func TestParseErrorsNameThePath(t *testing.T) {
	t.Setenv("CP_TEST_EMPTY", "")
	cases := []struct{ name, yaml, want string }{
		{"no token", "sidecars: [{name: a}, {name: b}]\napprovers: [{name: x, token: t1}]", "sidecars[0].token: missing"},
		{"two tokens", "sidecars: [{name: a, token: t0}, {name: b, token: t1, token_env: X}]\napprovers: [{name: x, token: t2}]", "sidecars[1].token: set only one"},
		{"dup token", "sidecars: [{name: a, token: t0}, {name: b, token: t0}]\napprovers: [{name: x, token: t2}]", "sidecars[1].token: the same token is already used by sidecars[0]"},
		{"approver reuses sidecar token", "sidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t0}]", "approvers[0].token: the same token is already used by sidecars[0]"},
		{"dup name", "sidecars: [{name: a, token: t0}, {name: a, token: t1}]\napprovers: [{name: x, token: t2}]", `sidecars[1].name: "a" is already the name of sidecars[0]`},
		{"empty name", "sidecars: [{token: t0}]\napprovers: [{name: x, token: t2}]", "sidecars[0].name: must not be empty"},
		{"unset env", "sidecars: [{name: a, token_env: CP_TEST_UNSET_XYZ}]\napprovers: [{name: x, token: t2}]", "sidecars[0].token_env: environment variable CP_TEST_UNSET_XYZ is not set"},
		{"empty env", "sidecars: [{name: a, token_env: CP_TEST_EMPTY}]\napprovers: [{name: x, token: t2}]", "sidecars[0].token_env: token is empty"},
		{"missing file", "sidecars: [{name: a, token_file: /nonexistent/tok}]\napprovers: [{name: x, token: t2}]", "sidecars[0].token_file: open /nonexistent/tok"},
		{"no sidecars", "approvers: [{name: x, token: t2}]", "sidecars: at least one"},
		{"no approvers", "sidecars: [{name: a, token: t0}]", "approvers: at least one"},
		{"bad store", "store: mysql://x\nsidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2}]", "store: \"mysql://x\" is neither"},
		{"bad listen", "listen: nowhere\nsidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2}]", "listen: \"nowhere\" is not host:port"},
		{"unknown key", "sidecar: [{name: a, token: t0}]\napprovers: [{name: x, token: t2}]", "unknown field \"sidecar\""},
		{"lease not a duration", "processing_lease: soon\nsidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2}]", `processing_lease: "soon" is not a duration`},
		{"lease too short", "processing_lease: 1s\nsidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2}]", `processing_lease: "1s" is shorter than 3s`},
		{"lease negative", "processing_lease: -5s\nsidecars: [{name: a, token: t0}]\napprovers: [{name: x, token: t2}]", `processing_lease: "-5s" is negative`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestRedactHidesPassword(t *testing.T) {
	got := Redact("postgres://u:secret@db:5432/cp?sslmode=disable")
	if strings.Contains(got, "secret") || !strings.Contains(got, "u:xxxxx@db:5432/cp") {
		t.Fatalf("Redact: %s", got)
	}
}

func TestExampleConfigLoads(t *testing.T) {
	c, err := Load("../../../examples/controlplane.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Sidecars["dev-sidecar-token"] != "demo" || c.Approvers["dev-approver-token"] == "" {
		t.Fatalf("example: %+v", c)
	}
}
