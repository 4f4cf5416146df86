#!/usr/bin/env bash
# Assembles the container image's whole filesystem into DIR (default
# .tools/image/rootfs): both binaries statically linked, CA certificates, an
# /etc/passwd and /etc/group naming the non-root user hoop (65532), and an
# empty world-writable /tmp. Nothing else: the image is FROM scratch.
# Used by both Dockerfiles (docs/container.md): the root Dockerfile runs it in
# its golang builder stage; `make image` (scripts/image.sh) runs it here and
# copies DIR in with Dockerfile.local.
# The sidecar links PostgreSQL's parser (pg_query_go, cgo), so it is linked
# statically against glibc; netgo and osusergo keep glibc's NSS (DNS, user
# lookups), which cannot work in a static binary, out of it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.tools/image/rootfs}
rm -rf "$out"
mkdir -p "$out/usr/local/bin" "$out/etc/ssl/certs" "$out/tmp"
static=(-tags netgo,osusergo -ldflags "-s -w -linkmode external -extldflags -static")
CGO_ENABLED=1 go build "${static[@]}" -o "$out/usr/local/bin/sidecar" ./cmd/sidecar
CGO_ENABLED=1 go build "${static[@]}" -o "$out/usr/local/bin/controlplane" ./cmd/controlplane
for b in sidecar controlplane; do
  if ldd "$out/usr/local/bin/$b" >/dev/null 2>&1; then
    echo "image-rootfs: $b is dynamically linked; a FROM scratch image cannot run it" >&2
    exit 1
  fi
done
ca=/etc/ssl/certs/ca-certificates.crt
if [ ! -f "$ca" ]; then
  echo "image-rootfs: $ca is missing (Debian package ca-certificates)" >&2
  exit 1
fi
cp "$ca" "$out/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nhoop:x:65532:65532:hoop sidecar:/tmp:/sbin/nologin\n' >"$out/etc/passwd"
printf 'root:x:0:\nhoop:x:65532:\n' >"$out/etc/group"
chmod 1777 "$out/tmp"
chmod 0755 "$out" "$out/usr" "$out/usr/local" "$out/usr/local/bin" "$out/etc" "$out/etc/ssl" "$out/etc/ssl/certs"
chmod 0644 "$out/etc/passwd" "$out/etc/group" "$out/etc/ssl/certs/ca-certificates.crt"
