//go:build pact

package consumer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pact-foundation/pact-go/v2/consumer"
	pactlog "github.com/pact-foundation/pact-go/v2/log"
	"github.com/pact-foundation/pact-go/v2/matchers"
	"github.com/pact-foundation/pact-go/v2/models"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/conformance/pact/contract"
)

// reopenedExampleID is the id of the request a reopen files, in the mock's
// answers.
const reopenedExampleID = "0b6c1e2f-7a8d-4e3c-b1a2-3c4d5e6f7a8b"

// cliInteraction is one approver API call the controlplane CLI makes, the
// answer it must handle, and what the CLI must then print.
type cliInteraction struct {
	state  string
	params map[string]any
	desc   string
	method string
	path   matchers.Matcher
	status int
	answer map[string]any
	// args are the CLI's arguments; --url and --token are added.
	args []string
	// check says what the CLI got wrong, from its exit code and output.
	check func(code int, stdout, stderr string) error
}

// review is the approver API's review object: the approval object plus what
// only approvers see (docs/control-plane-api.md, "Approver calls").
func review(status string, extra map[string]any) map[string]any {
	m := approval(status, map[string]any{
		"sidecar":         like(contract.SidecarName),
		"statement":       like(contract.FileDefaults.Statement),
		"client_identity": like(contract.FileDefaults.ClientIdentity),
		"sidecar_reads":   matchers.Integer(0),
	})
	if status == "PENDING" {
		m["decided_by"] = matchers.Null{}
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// reopened is reopen's 201 answer: the new PENDING request, naming the
// refused one, plus the refused one's status.
func reopened(previous string) map[string]any {
	return review("PENDING", map[string]any{
		"id":              like(reopenedExampleID),
		"reopened_from":   like(exampleID),
		"reopened_by":     like(contract.ApproverName),
		"previous_status": exact(previous),
	})
}

func printed(code int, stdout, stderr, want string) error {
	if code != 0 || stdout != want {
		return fmt.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and %q", code, stdout, stderr, want)
	}
	return nil
}

// cliInteractions is every approver call of the controlplane CLI this
// contract pins: reopen, which only a person makes (the Sidecar never asks
// again by itself).
var cliInteractions = []cliInteraction{
	{
		state: contract.StateRejected, params: map[string]any{contract.ParamFingerprint: "v1:pact-reopen-rejected", contract.ParamReason: "not during the freeze"},
		desc: "a request to reopen a REJECTED approval request", method: http.MethodPost, path: approverPath("/reopen"),
		status: http.StatusCreated, answer: reopened("REJECTED"), args: []string{"reopen", exampleID},
		check: func(code int, stdout, stderr string) error {
			return printed(code, stdout, stderr, "reopened "+exampleID+" (was REJECTED) as "+reopenedExampleID+" (PENDING)\n")
		},
	},
	{
		state: contract.StateRevoked, params: fp("v1:pact-reopen-revoked"),
		desc: "a request to reopen a REVOKED approval request", method: http.MethodPost, path: approverPath("/reopen"),
		status: http.StatusCreated, answer: reopened("REVOKED"), args: []string{"reopen", exampleID},
		check: func(code int, stdout, stderr string) error {
			return printed(code, stdout, stderr, "reopened "+exampleID+" (was REVOKED) as "+reopenedExampleID+" (PENDING)\n")
		},
	},
	{
		state: contract.StatePending, params: fp("v1:pact-reopen-pending"),
		desc: "a request to reopen an approval request that is PENDING", method: http.MethodPost, path: approverPath("/reopen"),
		status: http.StatusConflict,
		answer: withKeys(errorBody("conflict"), map[string]any{
			"message": like("cannot reopen approval " + exampleID + ": it is PENDING (reopen needs REJECTED or REVOKED)"),
			"review":  review("PENDING", nil)}),
		args: []string{"reopen", exampleID},
		check: func(code int, stdout, stderr string) error {
			if code != 1 || stdout != "" || !strings.Contains(stderr, "(conflict, HTTP 409)") {
				return fmt.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and the conflict", code, stdout, stderr)
			}
			return nil
		},
	},
}

// TestControlPlaneCLIPact runs the controlplane binary built from this
// checkout against the Pact mock server, one approver call at a time, writes
// the CLI's pact and checks it equals the committed pacts/ file (or, with
// UPDATE_PACT=1, replaces it). The provider verification then holds the
// reference Control Plane to it, so dropping reopen fails scripts/test-pact.sh.
func TestControlPlaneCLIPact(t *testing.T) {
	if os.Getenv("PACT_LOG_LEVEL") == "" {
		_ = pactlog.SetLogLevel("ERROR")
	}
	bin := harness.Binary(t, "controlplane")
	dir := t.TempDir()
	mock, err := consumer.NewV3Pact(consumer.MockHTTPProviderConfig{
		Consumer: contract.CLIConsumer, Provider: contract.Provider,
		Host: "127.0.0.1", PactDir: dir, LogDir: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range cliInteractions {
		t.Run(in.desc, func(t *testing.T) { runCLI(t, mock, bin, in) })
	}
	if t.Failed() {
		return
	}
	checkPactFile(t, filepath.Join(dir, contract.CLIPactFileName), contract.CLIPactFileName)
}

func runCLI(t *testing.T, mock *consumer.V3HTTPMockProvider, bin string, in cliInteraction) {
	err := mock.AddInteraction().
		GivenWithParameter(models.ProviderState{Name: in.state, Parameters: in.params}).
		UponReceiving(in.desc).
		WithRequestPathMatcher(consumer.Method(in.method), in.path, func(b *consumer.V3RequestBuilder) {
			b.Header("Authorization", regex("Bearer "+contract.ApproverToken, `^Bearer \S+$`))
		}).
		WillRespondWith(in.status, answer(in.answer)).
		ExecuteTest(t, func(cfg consumer.MockServerConfig) error {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			args := append(append([]string{}, in.args...),
				"--url", fmt.Sprintf("http://%s:%d", cfg.Host, cfg.Port), "--token", contract.ApproverToken)
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env = append(os.Environ(), "HOOP_CONTROLPLANE_URL=", "HOOP_APPROVER_TOKEN=")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					return err
				}
				code = ee.ExitCode()
			}
			return in.check(code, stdout.String(), stderr.String())
		})
	if err != nil {
		t.Fatal(err)
	}
}
