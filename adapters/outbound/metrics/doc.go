// Package metrics exports the Sidecar's metrics to Prometheus: the gate's
// decisions (ports.Metrics) and the Control Plane client's calls
// (ObserveControlPlane), on a registry of its own that also holds the Go and
// process collectors. cmd/sidecar serves Handler at the admin address's
// /metrics.
//
//   - prometheus.go: the metric names, labels and help texts, and the
//     registry.
package metrics
