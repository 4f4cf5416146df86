// Package container is the conformance suite of the container image
// (docs/container.md): it makes a Docker engine answer
// (scripts/docker-engine.sh; the suite fails with its message when it
// cannot), builds the image with `make image`'s script (cached by content),
// and with testcontainers-go runs the reference Control Plane and the
// Sidecar as containers on the host's network, config files mounted and the
// Sidecar token from the environment. Through them: the return-mode loop
// with psql against this machine's PostgreSQL and curl against an HTTP upstream in this
// test process, approved with the CLI inside the Control Plane's container;
// SIGTERM and the exit within shutdown_grace; JSON log lines. It also runs
// docker-compose.yml with docker-compose.local.yml (no registry), checks
// that Dockerfile.local is the root Dockerfile's last stage, and that the
// MariaDB upstream image starts through harness.PickUpstream.
package container
