//go:build pact

package consumer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/pact-foundation/pact-go/v2/consumer"
	"github.com/pact-foundation/pact-go/v2/matchers"

	cpclient "github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/conformance/pact/contract"
)

// Example values the mock server answers with; the provider is matched by
// the regular expressions or types, never by these values.
const (
	exampleID      = "9f97c0de-5a1b-4c2e-9d1e-1f2a3b4c5d6e"
	exampleTime    = "2026-09-29T14:02:11Z"
	exampleExpires = "2026-09-29T14:32:11Z"
	exampleDecided = "2026-09-29T14:05:42Z"
	// rfc3339 is the contract's time format: UTC, second precision.
	rfc3339 = `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`
	// sidecarVersion is what the client sends as X-Hoop-Sidecar-Version.
	sidecarVersion = "0.1.0-pact"
)

var (
	like  = matchers.Like
	regex = matchers.Regex
	exact = matchers.Equality
)

// when is an RFC 3339 time matched by format.
func when(example string) matchers.Matcher { return regex(example, rfc3339) }

// reviewPath is the Sidecar API path of one approval request (with suffix,
// e.g. "/claim"): the verifier puts in the id the provider state answered
// ("${id}"), the mock server matches the path by a regular expression.
// (pact-go's FromProviderState would match any path at all.)
func reviewPath(suffix string) matchers.Matcher {
	return pathFromState{Matcher: matchers.S(""), prefix: "/api/sidecars/reviews/", suffix: suffix}
}

// approverPath is reviewPath on the approver API (/api/reviews/{id}…).
func approverPath(suffix string) matchers.Matcher {
	return pathFromState{Matcher: matchers.S(""), prefix: "/api/reviews/", suffix: suffix}
}

// pathFromState is a regex matcher with a ProviderState generator. It embeds
// a Matcher only to be one; MarshalJSON is what pact-go hands to the FFI.
type pathFromState struct {
	matchers.Matcher
	prefix, suffix string
}

func (p pathFromState) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"pact:matcher:type":   "regex",
		"regex":               "^" + regexp.QuoteMeta(p.prefix) + "[^/]+" + regexp.QuoteMeta(p.suffix) + "$",
		"pact:generator:type": "ProviderState",
		"expression":          p.prefix + "${" + contract.ValueID + "}" + p.suffix,
		"value":               p.prefix + exampleID + p.suffix,
	})
}

// sidecarRequest sets the headers every Sidecar call carries; token is
// matched by a regular expression unless it is contract.UnknownToken.
func sidecarRequest(token string, json bool) func(*consumer.V3RequestBuilder) {
	return func(b *consumer.V3RequestBuilder) {
		auth := regex("Bearer "+token, `^Bearer \S+$`)
		if token == contract.UnknownToken {
			auth = matchers.S("Bearer " + token)
		}
		b.Header("Authorization", auth)
		b.Header("X-Hoop-Sidecar-Version", like(sidecarVersion))
		if json {
			b.Header("Content-Type", regex("application/json", `^application/json`))
		}
	}
}

// answer sets the status's JSON body and the headers of an answer from a
// Control Plane that implements contract v1 (X-Hoop-Api-Version >= 1).
func answer(body any) func(*consumer.V3ResponseBuilder) {
	return func(b *consumer.V3ResponseBuilder) {
		b.Header("Content-Type", regex("application/json", `^application/json`))
		b.Header("X-Hoop-Api-Version", regex("1", `^[1-9][0-9]*$`))
		if body != nil {
			b.JSONBody(body)
		}
	}
}

// olderAnswer is the answer of a Control Plane older than the contract: a
// JSON body without X-Hoop-Api-Version. The Sidecar reads only that as
// older; an answer without the header that is not JSON (a proxy's page) is
// unavailable (docs/control-plane-api.md).
func olderAnswer(body any) func(*consumer.V3ResponseBuilder) {
	return func(b *consumer.V3ResponseBuilder) {
		b.Header("Content-Type", regex("application/json", `^application/json`))
		b.JSONBody(body)
	}
}

// approval is the contract's approval object with status; extra adds or
// replaces keys (decided_at, expires_at, rejection_reason, reused, claimed).
// decided_at is null unless extra sets it.
func approval(status string, extra map[string]any) map[string]any {
	m := map[string]any{
		"id":            like(exampleID),
		"status":        exact(status),
		"listener_name": like(contract.FileDefaults.ListenerName),
		"approval_rule": like(contract.FileDefaults.ApprovalRule),
		"protocol":      like(contract.FileDefaults.Protocol),
		"fingerprint":   like("v1:4f0c"),
		"created_at":    when(exampleTime),
		"decided_at":    matchers.Null{},
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// errorBody is the contract's error object with code.
func errorBody(code string) map[string]any {
	return map[string]any{"code": exact(code), "message": like("what went wrong")}
}

// client is the Sidecar's real Control Plane client pointed at the mock.
func client(t *testing.T, cfg consumer.MockServerConfig, token string) *cpclient.Client {
	t.Helper()
	c, err := cpclient.New(cpclient.Options{URL: fmt.Sprintf("http://%s:%d", cfg.Host, cfg.Port),
		Token: cpclient.StaticToken(token), SidecarVersion: sidecarVersion})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
