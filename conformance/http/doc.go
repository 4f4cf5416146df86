// Package httpconformance is the conformance suite of the http listener:
// real clients (the curl and kubectl binaries, raw TCP) against the listener,
// in front of real upstreams (httptest servers that record every request
// that reaches them, one of them shaped like the Kubernetes API), with a
// Control Plane that approves, rejects and can be stopped mid-test.
//
// The suite checks the spec's http parts: the 403 denial and its X-Hoop-*
// headers, the status path and its status codes, the first-request-only
// rule, the identical resend that runs once, and that nothing under
// /.well-known/hoop/ ever reaches an upstream (checked across the whole
// suite in TestMain).
//
// Until the conformance harness can start a Sidecar with http listeners and
// the reference Control Plane, the Sidecar runs in-process (app.NewCore and
// the adapter) with the in-memory Control Plane of internal/fakecp; world.go
// is the one file to switch.
package httpconformance
