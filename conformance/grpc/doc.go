// Package grpcconformance is the grpc listener's conformance suite: real
// gRPC clients (grpcurl and Go clients built on generated code) against a
// real upstream gRPC server (package upstream: the Probe test service with
// all four call kinds, plus the standard health and reflection services),
// through the real cmd/sidecar binary, with the reference Control Plane
// (cmd/controlplane) on a fresh store; the approver approves with the
// controlplane CLI (conformance/harness).
//
// grpcurl is found at .tools/bin/grpcurl (make deps installs it) or on PATH.
package grpcconformance
