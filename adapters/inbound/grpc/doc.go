// Package grpclistener is the `grpc` listener protocol: a gRPC proxy in front
// of one upstream gRPC server that forwards any service without its protobuf
// definitions, hands each call to the gate as a statement, and forwards only
// what the gate lets through.
//
// What lives here:
//
//   - protocol.go: New, the app.Protocol surface (Name, Serve), the
//     grpc.Server with grpc.UnknownServiceHandler and the raw codec, the
//     listener's own certificate, draining on stop.
//   - spend.go: the statuses that prove nothing of a call ran
//     (spend_approval_on: accepted; the rule is domain.NothingRan).
//   - codec.go: the codec that passes message bytes through untouched.
//   - handler.go: per call, the gate first (reading the first request
//     message only when an approval rule covers the method), then the proxy
//     or the denial.
//   - held.go: the first message of a held call within the memory limits
//     (MaxHeldMessage, the held-payload budget app.HeldBudget;
//     RESOURCE_EXHAUSTED when refused).
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
//   - proxy.go: the relay of one call in both directions: messages,
//     metadata, deadlines, cancellation, trailers and status details.
//   - upstream.go: the client connections to the upstream (h2c or TLS).
//
// What every listener shares is not here: x-hoop-approval: return, identity
// metadata and whether a call's first message is needed (app/request.go),
// the denial's fields (domain/denial.go).
//
// docs/grpc-listener.md describes the behaviour for users.
package grpclistener
