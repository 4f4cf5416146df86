# mongodb conformance (conformance/mongodb): mongosh 2.12.0 and the Node
# `mongodb` driver 7.x from npm, locked in conformance/mongodb/node (a
# folder below the suite, which deps.sh's own loop does not reach). The Go
# driver and the embedded FerretDB come from go.mod.
if [ -f conformance/mongodb/node/package-lock.json ]; then
  d=conformance/mongodb/node
  if [ ! -x "$d/node_modules/.bin/mongosh" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
    echo "deps: npm ci in $d (mongosh, mongodb driver)"
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
