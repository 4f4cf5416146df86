package main_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// sidecar validate refuses masking rules a listener cannot honour: on a
// grpc listener (its messages cannot be read without their schema), a
// hash rule whose key is missing or short, a name no rule has, an entity
// that does not exist; the same rules on a postgres listener with the key
// set are valid.
func TestValidateChecksMaskingRules(t *testing.T) {
	bin := harness.Binary(t, "sidecar")
	file := func(listenerProto string) string {
		return writeConfig(t, `sidecar: demo
masking_rules:
  - {name: pii, entities: [EMAIL_ADDRESS, CREDIT_CARD], strategy: mask}
  - {name: ids, columns: ["*.customer_id"], strategy: hash, key_env: HOOP_TEST_MASK_KEY}
listeners:
  - {name: l, protocol: `+listenerProto+`, listen: "127.0.0.1:15999", upstream: "127.0.0.1:1", masking_rules: [pii, ids]}
`)
	}
	run := func(cfg string, env ...string) (string, int) {
		cmd := exec.Command(bin, "validate", cfg)
		cmd.Env = append(cmd.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		return string(out), 0
	}
	if out, code := run(file("postgres"), "HOOP_TEST_MASK_KEY=0123456789abcdef-key"); code != 0 {
		t.Fatalf("a valid masking config exited %d:\n%s", code, out)
	}
	out, code := run(file("postgres"), "HOOP_TEST_MASK_KEY=short")
	if code != 1 || !strings.Contains(out, "masking_rules[1]: key_env: the environment variable HOOP_TEST_MASK_KEY must hold a key of 16 bytes or more") {
		t.Errorf("a short key: exit %d:\n%s", code, out)
	}
	out, code = run(file("grpc"), "HOOP_TEST_MASK_KEY=0123456789abcdef-key")
	if code != 1 || !strings.Contains(out, "listeners[0].masking_rules: a grpc listener cannot mask") {
		t.Errorf("grpc: exit %d:\n%s", code, out)
	}
	bad := writeConfig(t, `sidecar: demo
masking_rules:
  - {name: pii, entities: [EMAIL, CREDIT_CARD], strategy: blur}
listeners:
  - {name: l, protocol: postgres, listen: "127.0.0.1:15999", upstream: "127.0.0.1:1", masking_rules: [pii, nope]}
`)
	out, code = run(bad)
	for _, want := range []string{`masking_rules[0].entities[0]: "EMAIL" is not an entity`, `strategy "blur"`,
		`listeners[0].masking_rules[1]: no masking rule is named "nope"`} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
}
