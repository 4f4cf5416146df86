// Package grpclistener is the `grpc` listener protocol: a gRPC proxy in front
// of one upstream gRPC server that forwards any service without its protobuf
// definitions, hands each call to the gate as a statement, and forwards only
// what the gate lets through.
//
// The listener relays HTTP/2 frames, as Envoy does, instead of serving
// gRPC: each client connection gets an upstream HTTP/2 connection of its
// own; frames are read with golang.org/x/net/http2's Framer and HPACK
// decoder, each call is decided on its HEADERS, the frames of an allowed
// call pass through with per-stream flow control, and a denied call gets
// the listener's own trailers while the connection's other calls go on.
//
// What lives here:
//
//   - protocol.go: New, the app.Protocol surface (Name, Serve), the accept
//     loop, the listener's own certificate (ALPN h2), draining on stop.
//   - session.go: one client connection and its upstream connection: the
//     two read loops, writing outside the lock (flushReader, writer),
//     GOAWAY and close, connection errors; the listener's set of sessions
//     (drain).
//   - side.go: one of a session's connections: its Framer and HPACK
//     encoder, the relay's SETTINGS, the peer's settings and send windows.
//   - frames.go: reading a side's frames; HEADERS, PING and WINDOW_UPDATE
//     into frames the side reuses, with the Framer's checks.
//   - headers.go: decoding a header block (HEADERS and CONTINUATION) into
//     fields the side reuses, with the checks of the Framer's
//     ReadMetaHeaders.
//   - encode.go: header blocks that only index the HPACK table, sent again
//     while the table is unchanged.
//   - stream.go: one call: its phase, the frames queued for each peer's
//     window, giving received bytes back (WINDOW_UPDATE), the end of a
//     call, the listener's own answers (trailers-only).
//   - client.go: frames from the client: a call's HEADERS (checked, then
//     decided at once when no approval rule covers the method), DATA
//     (relayed, or held until the first message is whole), RST_STREAM,
//     SETTINGS, PING, WINDOW_UPDATE.
//   - response.go: frames from the upstream: response HEADERS, DATA,
//     trailers, RST_STREAM, GOAWAY.
//   - handler.go: a call that an approval rule covers, on a goroutine of
//     its own: budget, gate, then relay or denial; settling its approval
//     before its last frame (spend_approval_on); well-formed method names.
//   - held.go: the first message of a held call within the memory limits
//     (MaxHeldMessage, the held-payload budget app.HeldBudget;
//     RESOURCE_EXHAUSTED when refused).
//   - message.go: gRPC's length-prefixed messages across DATA frames (the
//     MaxMessageBytes check, the first message, gzip), fuzzed by
//     FuzzMsgScan; FuzzRelayFrames feeds any frames to a session.
//   - metadata.go: header fields: what is forwarded, grpc-timeout,
//     grpc-message.
//   - upstream.go: the upstream's address and the connection to it (h2c,
//     or TLS with ALPN h2).
//   - spend.go: the statuses that prove nothing of a call ran
//     (spend_approval_on: accepted; the rule is domain.NothingRan).
//   - statement.go: the analysis (Actions = ["CALL"], Targets = [full method
//     name]), the canonical bytes the fingerprint covers (method and the
//     first request message) and the approver's display.
//   - effects.go: the effects of a call from its method's name (the AIP
//     standard verbs; UNKNOWN for custom methods).
//   - explain.go: Explain reads "/package.Service/Method" for `sidecar
//     explain`.
//   - preview.go: a descriptor-free rendering of protobuf wire bytes for the
//     approver (field numbers and values, like protoc --decode_raw).
//   - denial.go: PERMISSION_DENIED with the denial's fields as trailing
//     metadata (domain.Denial.Fields, spec "Find the approval in the denial").
//
// What every listener shares is not here: x-hoop-approval: return, identity
// metadata and whether a call's first message is needed (app/request.go),
// the denial's fields (domain/denial.go).
//
// docs/grpc-listener.md describes the behaviour for users.
package grpclistener
