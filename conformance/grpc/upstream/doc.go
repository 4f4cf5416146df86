// Package upstream is the conformance suite's real gRPC upstream: the Probe
// test service (one method per call kind, see ../testpb/probe.proto), the
// standard health service and server reflection, on 127.0.0.1:0, plaintext
// (h2c) or TLS. It counts the calls each method receives and records the
// metadata and the context errors it saw, so tests assert what reached it.
package upstream
