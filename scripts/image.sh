#!/usr/bin/env bash
# make image: builds the Sidecar's container image on this machine without a
# registry and prints its name (docs/container.md). The filesystem is
# assembled here (scripts/image-rootfs.sh: static binaries, CA certificates,
# the non-root user) and copied into an empty image by Dockerfile.local, the
# root Dockerfile's last stage.
# Cached: the image carries the label org.hoophq.content-hash (a hash of the
# filesystem, Dockerfile.local and the labels); when an image with that name
# and label exists, docker build is skipped. Starts an engine when none
# answers (scripts/docker-engine.sh). The last line of output is the name.
# Env: IMAGE (default hoophq/sidecar:<version from internal/version>).
set -euo pipefail
cd "$(dirname "$0")/.."
LABEL=org.hoophq.content-hash
./scripts/docker-engine.sh >&2
version=$(sed -n 's/^var Version = "\(.*\)"$/\1/p' internal/version/version.go)
[ -n "$version" ] || { echo "image: no Version in internal/version/version.go" >&2; exit 1; }
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
name=${IMAGE:-hoophq/sidecar:$version}
start=$SECONDS
./scripts/image-rootfs.sh .tools/image/rootfs >&2
hash=$( { (cd .tools/image &&
            find rootfs -print0 | LC_ALL=C sort -z | xargs -0 stat -c '%n %a' &&
            find rootfs -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum);
         cat Dockerfile.local; echo "$version $revision"; } | sha256sum | cut -c1-16)
if [ "$(docker image inspect "$name" --format "{{index .Config.Labels \"$LABEL\"}}" 2>/dev/null)" = "$hash" ]; then
  echo "image: $name is up to date (content $hash; binaries checked in $((SECONDS - start)) s)" >&2
else
  if ! docker build -f Dockerfile.local --label "$LABEL=$hash" \
    --build-arg "VERSION=$version" --build-arg "REVISION=$revision" -t "$name" .tools/image >.tools/image/build.log 2>&1; then
    echo "image: docker build failed:" >&2
    cat .tools/image/build.log >&2
    exit 1
  fi
  echo "image: built $name in $((SECONDS - start)) s ($(docker image inspect "$name" --format '{{.Size}}' | awk '{printf "%.1f MB", $1/1e6}'))" >&2
fi
echo "$name"
