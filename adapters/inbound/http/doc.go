// Package httplistener is the `http` listener protocol: a reverse proxy in
// front of one http or https upstream (a REST API, the Kubernetes API…) that
// hands every request to the gate as a statement and forwards only what the
// gate lets through.
//
// What lives here:
//
//   - protocol.go: New, the app.Protocol surface (Name, Serve), the http.Server
//     with its per-connection request counter. The listener speaks HTTP/1.1
//     only (also over TLS), so "the first request on a connection" is well
//     defined for the status path.
//   - spend.go: the statuses that prove nothing of a request ran
//     (spend_approval_on: accepted; the rule is domain.NothingRan).
//   - relay.go, relayforward.go: the relay that serves plain HTTP/1.1
//     connections without net/http (a request head read and decided, then
//     bytes moved over an upstream connection pinned to the client's);
//     head.go reads request heads, response.go response heads and chunk
//     framing (responsecache.go: an upstream connection's last head read,
//     reused for a byte-identical one), upstream.go (alive_*.go) the pinned
//     upstream connection, deadline.go the read deadlines kept on both
//     connections (moved only once they have run down by a slack);
//     handoff.go gives a connection to net/http's server at its first
//     request the relay does not serve. FuzzRequestHead and
//     FuzzResponseHead hold the readers against net/http's.
//   - mask.go: masking of response bodies (masking_rules): which bodies are
//     read (Content-Type, Content-Encoding, MaxMaskedBody), decoding and
//     encoding again, the 502 a strict rule refuses with; maskjson.go the
//     JSON rewriter (FuzzMaskJSON); relaymask.go on the relay,
//     proxymask.go on net/http's reverse proxy. Without masking rules none
//     of it runs.
//   - handler.go: per request, the reserved /.well-known/hoop/ prefix first,
//     then the gate, then the proxy or the denial.
//   - reserved.go: which request targets belong to the Sidecar, and how each
//     is answered (status path, 404, 400).
//   - prefix.go: whether any reading of a path (as sent, decoded, resolved at
//     every step, as lenient servers trim and fold it) lies under
//     /.well-known/hoop/. FuzzReservedPrefix and FuzzReserveReadings hold it
//     against a brute-force oracle (reserved_oracle_test.go).
//   - lenient.go: the lenient readings of a path that the gate's rules match.
//   - held.go: reading a held body within the memory limits: the
//     held-payload budget (app.HeldBudget, 503 when full), the body read
//     deadline (408).
//   - statuspath.go: GET/HEAD /.well-known/hoop/approvals/<id> (and the earlier
//     /.well-known/hoop/reviews/<id>), spec "Read the status on an http listener".
//   - statement.go: the analysis (Actions = [method], Targets = [path]), the
//     canonical bytes the fingerprint covers (method, path, raw query,
//     Content-Type, body) and the approver's display.
//   - effects.go: the effects of a request from its methods (RFC 9110,
//     WebDAV); kube.go what a Kubernetes API path adds (UNBOUNDED for a
//     collection DELETE, OS_COMMAND for exec, PRIVILEGE for RBAC…).
//     Explain (explain.go) reads "METHOD /path" for `sidecar explain`.
//   - denial.go: the 403 with the denial's fields as headers
//     (domain.Denial.Fields, spec "Find the approval in the denial").
//
// What every listener shares is not here: the X-Hoop-Approval: return
// header, identity headers and whether a request's body is needed
// (app/request.go), the denial's fields (domain/denial.go).
//   - proxy.go, tls.go: the httputil.ReverseProxy towards the upstream (streamed
//     bodies, SSE, upgrades), the upstream transports and the listener's own
//     certificate.
//
// docs/http-listener.md describes the behaviour for users.
package httplistener
