#!/usr/bin/env bash
# Installs what `make test` needs, idempotently, from the Go module proxy,
# Debian's packages and the npm registry only. Safe to run again: each step
# checks first and does nothing when its tool is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tools/bin

apt_install() { # package command...
  local pkg=$1; shift
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 && continue
    echo "deps: installing Debian package $pkg (for $c)"
    if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq; APT_UPDATED=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null
    return
  done
}
apt_install curl curl
apt_install postgresql-client psql
apt_install postgresql-contrib pgbench

apt_install gcc gcc   # cgo: the PostgreSQL analyzer links PostgreSQL's own parser
# `scripts/deps.sh run` stops here: make run needs only the tools above.
if [ "${1:-}" = run ]; then echo "deps: ok (run)"; exit 0; fi

command -v node >/dev/null || apt_install nodejs node
command -v npm >/dev/null || apt_install npm npm
# Debian's chromium for the approver page's browser test (conformance/approverpage,
# driven by playwright-core from npm; Playwright's own browser download is not used).
apt_install chromium chromium
command -v kubectl >/dev/null || echo "deps: kubectl not found (this machine kind ships it); the kubectl conformance test will say so" >&2

# npm packages of the conformance scripts (each folder with a package-lock.json).
for d in conformance/*/; do
  if [ -f "$d/package-lock.json" ]; then
    if [ ! -d "$d/node_modules" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
      echo "deps: npm ci in $d"
      # npm ci refuses a lock that names an optional dependency the registry
      # no longer serves (the inspector's vite lists a Windows-only one that
      # answers 404); npm install takes the same locked versions and skips it.
      (cd "$d" && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null ||
        { echo "deps: npm ci refused the lock in $d; npm install with the same lock"; npm install --no-audit --no-fund --loglevel=error; }; })
    fi
  fi
done

# Go tools (pinned) into .tools/bin.
go_tool() { # binary module@version
  [ -x ".tools/bin/$1" ] && return
  echo "deps: go install $2"
  GOBIN="$PWD/.tools/bin" go install "$2"
}
for f in scripts/deps.d/*.sh; do [ -f "$f" ] && . "$f"; done
echo "deps: ok"
