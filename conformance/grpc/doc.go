// Package grpcconformance is the grpc listener's conformance suite: real
// gRPC clients (grpcurl and Go clients built on generated code) against a
// real upstream gRPC server (package upstream: the Probe test service with
// all four call kinds, plus the standard health and reflection services),
// through the grpc listener.
//
// The listener runs in the test process on the core with the in-memory
// Control Plane (internal/fakecp) until the binary harness
// (conformance/harness) serves the reference Control Plane.
//
// grpcurl is found at .tools/bin/grpcurl (make deps installs it) or on PATH.
package grpcconformance
