//go:build pact

package consumer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pact-foundation/pact-go/v2/consumer"
	pactlog "github.com/pact-foundation/pact-go/v2/log"
	"github.com/pact-foundation/pact-go/v2/matchers"
	"github.com/pact-foundation/pact-go/v2/models"

	"github.com/hoophq/sidecar/conformance/pact/contract"
)

// TestSidecarPact runs every interaction against the Pact mock server with
// the Sidecar's real client, writes the pact into a temporary folder, and
// then checks it equals the committed pacts/ file (or, with UPDATE_PACT=1,
// replaces it).
func TestSidecarPact(t *testing.T) {
	if os.Getenv("PACT_LOG_LEVEL") == "" {
		_ = pactlog.SetLogLevel("ERROR")
	}
	dir := t.TempDir()
	mock, err := consumer.NewV3Pact(consumer.MockHTTPProviderConfig{
		Consumer: contract.Consumer, Provider: contract.Provider,
		Host: "127.0.0.1", PactDir: dir, LogDir: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, in := range interactions {
		if seen[in.desc] {
			t.Fatalf("two interactions are described %q; descriptions must be unique", in.desc)
		}
		seen[in.desc] = true
		t.Run(in.desc, func(t *testing.T) { run(t, mock, in) })
	}
	if t.Failed() {
		return
	}
	checkPactFile(t, filepath.Join(dir, contract.PactFileName), contract.PactFileName)
}

// run registers one interaction and has the real client call the mock.
func run(t *testing.T, mock *consumer.V3HTTPMockProvider, in interaction) {
	token := in.token
	if token == "" {
		token = contract.SidecarToken
	}
	b := mock.AddInteraction()
	if in.params != nil {
		b = b.GivenWithParameter(models.ProviderState{Name: in.state, Parameters: in.params})
	} else {
		b = b.Given(in.state)
	}
	err := b.UponReceiving(in.desc).
		WithRequestPathMatcher(consumer.Method(in.method), in.path, func(rb *consumer.V3RequestBuilder) {
			sidecarRequest(token, in.body != nil)(rb)
			for k, v := range in.query {
				rb.Query(k, matchers.S(v))
			}
			if in.body != nil {
				rb.JSONBody(in.body)
			}
		}).
		WillRespondWith(in.status, func(rb *consumer.V3ResponseBuilder) {
			if in.older {
				olderAnswer(in.answer)(rb)
			} else {
				answer(in.answer)(rb)
			}
		}).
		ExecuteTest(t, func(cfg consumer.MockServerConfig) error {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return in.check(ctx, client(t, cfg, token))
		})
	if err != nil {
		t.Fatal(err)
	}
}
