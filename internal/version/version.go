// Package version holds the version of both binaries, sidecar and
// controlplane (`sidecar version`, `controlplane version`, the Control
// Plane's Sidecar API and webhooks), set at build time with
// -ldflags "-X github.com/hoophq/sidecar/internal/version.Version=…".
package version

// Version is the hoop Sidecar's semantic version, shared by both binaries.
var Version = "1.250.0-dev"
