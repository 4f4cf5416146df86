#!/usr/bin/env bash
# Makes a Docker engine answer on this machine, idempotently, for the
# container suites (docs/container.md, "Tests"):
#   - an engine already answers (`docker info`): nothing to do;
#   - else, as root on Linux: installs Debian's docker.io if dockerd is
#     missing, starts `dockerd --storage-driver=vfs` in the background (its
#     own session, so it outlives this shell; log in .run/dockerd.log) and
#     waits up to 120 s for it to answer;
#   - else it says plainly why it cannot, and exits 1.
# An engine it starts keeps running after the tests (the images stay cached
# in it); `scripts/docker-engine.sh stop` (make stop-engine) stops that one,
# and only that one (.run/dockerd.started names it).
# Prints one line saying which case it was. The conformance/container suite
# runs this too and fails with its message when it exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
marker="$PWD/.run/dockerd.started"

if [ "${1:-}" = stop ]; then
  if [ ! -f "$marker" ]; then
    echo "docker: no engine started by this checkout's make test or make run is running (an engine started otherwise is left alone)"
    exit 0
  fi
  pid=$(cat /var/run/docker.pid 2>/dev/null || cat "$marker")
  if kill -0 "$pid" 2>/dev/null; then
    echo "docker: stopping the dockerd this checkout started (pid $pid)"
    kill -TERM "$pid"
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "docker: dockerd $pid did not stop within 60 s" >&2
      exit 1
    fi
  fi
  rm -f "$marker"
  echo "docker: stopped; its images stay in /var/lib/docker (about 1.7 GB with the test images): remove that folder to take the disk back"
  exit 0
fi

if docker info >/dev/null 2>&1; then
  echo "docker: an engine answers ($(docker info --format '{{.ServerVersion}}, storage {{.Driver}}' 2>/dev/null))"
  exit 0
fi
if [ "$(uname -s)" != Linux ]; then
  echo "docker: no Docker engine answers and this is $(uname -s), where the project cannot start one: start Docker Desktop (or set DOCKER_HOST)" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "docker: no Docker engine answers and this user is not root, so the project cannot start one: start dockerd (or set DOCKER_HOST to one that runs)" >&2
  exit 1
fi
if ! command -v dockerd >/dev/null 2>&1; then
  echo "docker: installing Debian package docker.io (dockerd)"
  if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq; APT_UPDATED=1; fi
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null; then
    echo "docker: no Docker engine answers and apt-get install docker.io failed" >&2
    exit 1
  fi
fi
mkdir -p .run
log="$PWD/.run/dockerd.log"
# Another caller may be starting one right now: one starter at a time.
exec 9>/tmp/hoop-dockerd.lock
flock 9
if ! docker info >/dev/null 2>&1; then
  if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
    rm -f /var/run/docker.pid   # left by an engine that was killed
  fi
  echo "docker: starting dockerd --storage-driver=vfs (log: $log)"
  # vfs: works on any filesystem, including overlay-on-overlay sandboxes.
  setsid nohup dockerd --storage-driver=vfs >>"$log" 2>&1 </dev/null &
  echo $! >"$marker"
  for _ in $(seq 120); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
fi
if ! docker info >/dev/null 2>&1; then
  echo "docker: started dockerd but it does not answer after 120 s; its log $log ends with:" >&2
  tail -n 15 "$log" >&2 || true
  exit 1
fi
echo "docker: an engine answers ($(docker info --format '{{.ServerVersion}}, storage {{.Driver}}' 2>/dev/null))"
