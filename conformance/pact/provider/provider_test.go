//go:build pact

package provider

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	pactlog "github.com/pact-foundation/pact-go/v2/log"
	"github.com/pact-foundation/pact-go/v2/models"
	pactprovider "github.com/pact-foundation/pact-go/v2/provider"

	"github.com/hoophq/sidecar/conformance/pact/contract"
)

// TestControlPlaneHonoursThePact verifies the reference Control Plane's HTTP
// handler against the committed pacts (the Sidecar's and the controlplane
// CLI's), setting up each provider state on a fresh SQLite store.
func TestControlPlaneHonoursThePact(t *testing.T) {
	if os.Getenv("PACT_LOG_LEVEL") == "" {
		_ = pactlog.SetLogLevel("ERROR")
	}
	files, err := contract.PactFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		checkEveryStateHasASetUp(t, file)
	}

	p := Start(t, nil)
	handlers := models.StateHandlers{}
	for _, name := range contract.States {
		handlers[name] = func(setup bool, s models.ProviderState) (models.ProviderStateResponse, error) {
			if !setup {
				return nil, nil
			}
			values, err := p.Setup(s.Name, stateParams(s.Parameters))
			if err != nil {
				t.Errorf("%v", err)
			}
			return values, err
		}
	}
	err = pactprovider.NewVerifier().VerifyProvider(t, pactprovider.VerifyRequest{
		Provider:             contract.Provider,
		ProviderBaseURL:      p.URL,
		PactFiles:            files,
		StateHandlers:        handlers,
		RequestTimeout:       10 * time.Second,
		DisableColoredOutput: true,
	})
	if err != nil {
		t.Fatalf("the reference Control Plane does not honour %v: %v", files, err)
	}
}

// stateParams returns a state's parameters. pact-go hands over the whole
// state change body less "state" and "action"; the verifier of libpact_ffi
// 0.4 puts the parameters under "params" there.
func stateParams(body map[string]any) map[string]any {
	if p, ok := body["params"].(map[string]any); ok {
		return p
	}
	return body
}

// checkEveryStateHasASetUp fails when the pact names a provider state this
// package cannot set up (pact-go would only log it, and the interaction
// would then fail for a reason that hides the cause).
func checkEveryStateHasASetUp(t *testing.T, file string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the committed pact cannot be read: %v (the consumer tests write it; see docs/contract-testing.md)", err)
	}
	var pact struct {
		Interactions []struct {
			Description    string `json:"description"`
			ProviderStates []struct {
				Name string `json:"name"`
			} `json:"providerStates"`
		} `json:"interactions"`
	}
	if err := json.Unmarshal(raw, &pact); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(pact.Interactions) == 0 {
		t.Fatalf("%s holds no interactions", file)
	}
	for _, in := range pact.Interactions {
		for _, s := range in.ProviderStates {
			if _, ok := seeds[s.Name]; !ok {
				t.Errorf("interaction %q: provider state %q has no set-up in states.go", in.Description, s.Name)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}
