# Sourced by scripts/deps.sh (make deps), from the repository root: the real
# clients of the mysql conformance suite (conformance/mysql). The mariadb CLI
# comes from Debian (mariadb-client); go-sql-driver/mysql is a Go module of
# go.mod; Node mysql2 is pinned in conformance/mysql/node (npm ci, once per
# lock change). Idempotent.
apt_install mariadb-client mariadb
if command -v npm >/dev/null 2>&1; then
  d=conformance/mysql/node
  if [ ! -f "$d/node_modules/.package-lock.json" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
    echo "deps: npm ci in $d"
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error)
  fi
else
  echo "deps: npm is needed for the mysql suite's Node client (conformance/mysql/node)" >&2
  return 1
fi
