#!/usr/bin/env bash
# pgbench -S TPS directly against PostgreSQL and through a Sidecar postgres
# listener, in one run, printed as a table. A comparison, not a test.
#
#   bench/pgbench.sh            # upstream 127.0.0.1:5432, user postgres (trust)
#   PGBENCH_CLIENTS=8 PGBENCH_SECONDS=30 bench/pgbench.sh
#
# Environment: PGBENCH_HOST (127.0.0.1), PGBENCH_PORT (5432), PGBENCH_USER
# (postgres), PGBENCH_CLIENTS (4), PGBENCH_SECONDS (10), PGBENCH_SCALE (1),
# SIDECAR_BIN (built from this checkout when unset). It creates a scratch
# database, starts a Sidecar without a Control Plane (SELECTs need no
# approval; every statement still goes through the analyzer and the gate),
# and removes both at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

host=${PGBENCH_HOST:-127.0.0.1}
port=${PGBENCH_PORT:-5432}
user=${PGBENCH_USER:-postgres}
clients=${PGBENCH_CLIENTS:-4}
seconds=${PGBENCH_SECONDS:-10}
scale=${PGBENCH_SCALE:-1}
for c in pgbench psql go; do
  command -v "$c" >/dev/null || { echo "pgbench.sh: $c is not installed (make deps)" >&2; exit 1; }
done

work=$(mktemp -d)
db="hoop_bench_$$"
sidecar_pid=""
cleanup() {
  [ -n "$sidecar_pid" ] && kill "$sidecar_pid" 2>/dev/null && wait "$sidecar_pid" 2>/dev/null || true
  psql -X -q -h "$host" -p "$port" -U "$user" -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  echo "building the sidecar…" >&2
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi

listen_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 25432)
cat >"$work/config.yaml" <<EOF
sidecar: bench
log: {format: text, level: warn}
approval_rules:
  - name: db-destructive
    match: {actions: [DROP, TRUNCATE, DELETE]}
listeners:
  - name: pg
    protocol: postgres
    listen: 127.0.0.1:$listen_port
    upstream: $host:$port
    mode: return
    approval_rules: [db-destructive]
EOF
"$bin" run -config "$work/config.yaml" >"$work/sidecar.log" 2>&1 &
sidecar_pid=$!
for _ in $(seq 1 100); do
  psql -X -q -h 127.0.0.1 -p "$listen_port" -U "$user" -d postgres -c 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.1
done

echo "preparing $db (pgbench -i -s $scale)…" >&2
psql -X -q -h "$host" -p "$port" -U "$user" -d postgres -c "CREATE DATABASE $db" >/dev/null
pgbench -i -q -s "$scale" -h "$host" -p "$port" -U "$user" "$db" >/dev/null 2>&1

tps() { # host port
  pgbench -S -n -c "$clients" -j "$clients" -T "$seconds" -h "$1" -p "$2" -U "$user" "$db" 2>/dev/null |
    awk '/^tps = / {printf "%.0f", $3; exit}'
}
direct=$(tps "$host" "$port")
through=$(tps 127.0.0.1 "$listen_port")
[ -n "$direct" ] && [ -n "$through" ] || { echo "pgbench.sh: a run failed; sidecar log:" >&2; cat "$work/sidecar.log" >&2; exit 1; }

printf '\npgbench -S -c %s -T %s (scale %s), same run\n' "$clients" "$seconds" "$scale"
printf '%-28s %12s\n' "path" "TPS"
printf '%-28s %12s\n' "direct ($host:$port)" "$direct"
printf '%-28s %12s\n' "through the Sidecar" "$through"
awk -v d="$direct" -v s="$through" 'BEGIN { printf "%-28s %11.0f%%\n", "Sidecar / direct", 100 * s / d }'
