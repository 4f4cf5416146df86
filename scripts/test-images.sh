#!/usr/bin/env bash
# Builds the upstream images the conformance suites start through
# testcontainers-go where no image registry is reached (docs/container.md,
# "Tests"), from Debian's packages only:
#   hoop-test/debian:bookworm  debootstrap --variant=minbase, imported (~2 min)
#   hoop-test/postgres:15      conformance/images/postgres.Dockerfile
#   hoop-test/mariadb:10.11    conformance/images/mariadb.Dockerfile
# Cached on this engine: each image carries the label
# org.hoophq.content-hash (a hash of what it was built from), and an image
# whose label matches is not built again. Needs an engine that answers
# (scripts/docker-engine.sh); the base needs root and debootstrap.
# Usage: scripts/test-images.sh [postgres] [mariadb]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."

LABEL=org.hoophq.content-hash
BASE=hoop-test/debian:bookworm

has_hash() { # image hash
  [ "$(docker image inspect "$1" --format "{{index .Config.Labels \"$LABEL\"}}" 2>/dev/null)" = "$2" ]
}

base() {
  # The base changes only when this recipe does.
  local hash
  hash=$(echo "debootstrap --variant=minbase bookworm http://deb.debian.org/debian v2" | sha256sum | cut -c1-16)
  has_hash "$BASE" "$hash" && return
  if [ "$(id -u)" != 0 ]; then
    echo "test-images: $BASE is missing and debootstrap needs root; run as root or docker tag a Debian bookworm image as $BASE" >&2
    return 1
  fi
  if ! command -v debootstrap >/dev/null 2>&1; then
    echo "test-images: installing Debian package debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  local dir start=$SECONDS
  dir=$(mktemp -d /var/tmp/hoop-debootstrap.XXXXXX)
  echo "test-images: debootstrap bookworm into $dir (about 2 minutes)"
  if ! debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian >"$dir.log" 2>&1; then
    echo "test-images: debootstrap failed; the end of $dir.log:" >&2
    tail -n 20 "$dir.log" >&2
    rm -rf "$dir"
    return 1
  fi
  # The same sources as this machine (security updates included), and no
  # apt caches in the image.
  echo "deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main" >"$dir/etc/apt/sources.list"
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  chmod 755 "$dir"   # mktemp made it 0700: it becomes the image's /, which every user must traverse
  tar -C "$dir" -c . | docker import --change "LABEL $LABEL=$hash" --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null
  rm -rf "$dir" "$dir.log"
  echo "test-images: built $BASE in $((SECONDS - start)) s"
}

image() { # name dockerfile
  local name=$1 file=$2 hash start=$SECONDS
  hash=$( { cat "$file"; docker image inspect "$BASE" --format '{{.Id}}'; } | sha256sum | cut -c1-16)
  if has_hash "$name" "$hash"; then
    echo "test-images: $name is up to date"
    return
  fi
  echo "test-images: building $name from $file (apt inside the build)"
  if ! docker build --network host --label "$LABEL=$hash" -t "$name" -f "$file" conformance/images >".run/build-${name//[\/:]/_}.log" 2>&1; then
    echo "test-images: docker build $name failed; the end of .run/build-${name//[\/:]/_}.log:" >&2
    tail -n 20 ".run/build-${name//[\/:]/_}.log" >&2
    return 1
  fi
  echo "test-images: built $name in $((SECONDS - start)) s"
}

mkdir -p .run
# One builder at a time on this engine (test processes may call this too).
exec 9>/tmp/hoop-test-images.lock
flock 9
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(postgres mariadb)
base
for w in "${want[@]}"; do
  case $w in
    postgres) image hoop-test/postgres:15 conformance/images/postgres.Dockerfile ;;
    mariadb) image hoop-test/mariadb:10.11 conformance/images/mariadb.Dockerfile ;;
    *) echo "test-images: unknown image $w (postgres, mariadb)" >&2; exit 2 ;;
  esac
done
