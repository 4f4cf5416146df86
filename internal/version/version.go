// Package version holds the Sidecar's version, set at build time with
// -ldflags "-X github.com/hoophq/sidecar/internal/version.Version=…".
package version

// Version is the Sidecar's semantic version.
var Version = "1.250.0-dev"
