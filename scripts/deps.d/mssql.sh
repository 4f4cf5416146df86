# Sourced by scripts/deps.sh (make deps), from the repository root: the real
# clients of the mssql work (conformance/mssql). FreeTDS `tsql` comes from Debian (freetds-bin);
# go-mssqldb is a Go module of go.mod. Idempotent.
apt_install freetds-bin tsql
# Node mssql 12.7.14 and tedious 20.3.9 are pinned in conformance/mssql/node
# (npm ci, once per lock change), as conformance/mysql/node is.
if command -v npm >/dev/null 2>&1; then
  d=conformance/mssql/node
  if [ ! -f "$d/node_modules/.package-lock.json" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
    echo "deps: npm ci in $d"
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error)
  fi
else
  echo "deps: npm is needed for the mssql suite's Node clients (conformance/mssql/node)" >&2
  return 1
fi
