# Sourced by scripts/deps.sh (make deps), from the repository root.
# A Docker engine for the container suites (docs/container.md, "Tests"):
# scripts/docker-engine.sh starts one where none answers and it can (root on
# Linux: Debian's docker.io, dockerd --storage-driver=vfs); then the upstream
# images that the PostgreSQL and MariaDB suites run through testcontainers-go
# (scripts/test-images.sh; cached on the engine by content, so a second run
# builds nothing), docker-compose for the compose test, and the mariadb
# client. When no engine can run, it says so and goes on: conformance/container
# then fails with the same words, and the other suites use this machine's
# servers (and say so).
apt_install mariadb-client mariadb
apt_install docker-compose docker-compose
if ./scripts/docker-engine.sh; then
  ./scripts/test-images.sh postgres mariadb ||
    echo "deps: the upstream images were not built; the suites will use this machine's servers and say so" >&2
else
  echo "deps: no Docker engine; conformance/container will fail with the reason above" >&2
fi
# The Sidecar's image too (cached the same way), so that its first, cold
# static build is not paid inside the container suite's test timeout.
if docker info >/dev/null 2>&1; then
  ./scripts/image.sh >/dev/null || echo "deps: make image failed; conformance/container will fail with the reason" >&2
fi
