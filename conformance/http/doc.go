// Package httpconformance is the conformance suite of the http listener:
// real clients (the curl and kubectl binaries, raw TCP) against the listener,
// in front of real upstreams (httptest servers that record every request
// that reaches them, one of them shaped like the Kubernetes API), with a
// Control Plane that approves, rejects and can be stopped mid-test.
//
// The suite checks the spec's http parts: the 403 denial and its X-Hoop-*
// headers, the status path and its status codes, the first-request-only
// rule, the identical resend that runs once, and that nothing under
// /.well-known/hoop/, in any spelling or reading, ever reaches an upstream
// (checked across the whole suite in TestMain, which fails on any upstream
// request whose target spells "well-known" or "hoop" once decoded and
// folded).
//
// The Control Plane is the reference one, the real cmd/controlplane binary
// started by conformance/harness; people approve and reject with its CLI, and
// a test stops its process to see the 502. The Sidecar runs in-process: the
// core, this adapter and the real Control Plane client (world_test.go);
// reserved_binary_test.go and effects_test.go (a rule on the DELETE effect,
// written in the config file) run the real sidecar binary instead.
package httpconformance
