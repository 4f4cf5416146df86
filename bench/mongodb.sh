#!/usr/bin/env bash
# find by _id operations/s and latency percentiles directly against a
# MongoDB-compatible upstream and through a Sidecar mongodb listener, in one
# run, printed as a table with the ratio. A comparison, not a test.
#
#   bench/mongodb.sh                                  # 4 connections, 10 s each way
#   MONGO_CONNS=8 MONGO_SECONDS=20 MONGO_ROUNDS=3 bench/mongodb.sh
#   MONGO_UPSTREAM=127.0.0.1:27017 bench/mongodb.sh   # a real mongod instead
#   MONGO_STUB=1 bench/mongodb.sh                     # an in-memory stand-in: the listener's own cost
#
# Environment: MONGO_CONNS (4), MONGO_SECONDS (10), MONGO_WARMUP (1s),
# MONGO_ROUNDS (1: each round measures direct, then the Sidecar),
# MONGO_DOCS (1000), MONGO_UPSTREAM (host:port; unset: FerretDB v1.24.2
# embedded in bench/mongoupstream, SQLite handler; MONGO_STUB=1: its in-memory
# stand-in, which answers at once and so shows what the listener adds), SIDECAR_BIN (built from
# this checkout when unset). The load generator (bench/mongoload, the Go
# driver) keeps one find in flight per connection. The Sidecar runs without
# a Control Plane: finds need no approval (the listener's rule holds DELETE,
# DROP and AGGREGATE_WRITE), but every command still goes through the
# analysis and the gate. Nothing is installed; everything is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

conns=${MONGO_CONNS:-4}
seconds=${MONGO_SECONDS:-10}
warmup=${MONGO_WARMUP:-1s}
rounds=${MONGO_ROUNDS:-1}
ndocs=${MONGO_DOCS:-1000}
command -v go >/dev/null || { echo "mongodb.sh: go is not installed" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building the load generator, the upstream and the sidecar…" >&2
go build -o "$work/mongoload" ./bench/mongoload
bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi

. bench/lib.sh # free_port, wait_port

upstream=${MONGO_UPSTREAM:-}
source="MONGO_UPSTREAM"
if [ -z "$upstream" ]; then
  go build -o "$work/mongoupstream" ./bench/mongoupstream
  stub=()
  [ -n "${MONGO_STUB:-}" ] && stub=(-stub)
  "$work/mongoupstream" -listen 127.0.0.1:0 "${stub[@]}" >"$work/upstream.addr" 2>"$work/upstream.log" &
  pids+=($!)
  for _ in $(seq 1 300); do [ -s "$work/upstream.addr" ] && break; sleep 0.1; done
  upstream=$(head -n1 "$work/upstream.addr")
  [ -n "$upstream" ] || { echo "mongodb.sh: the upstream did not start:" >&2; cat "$work/upstream.log" >&2; exit 1; }
  source="FerretDB v1.24.2 embedded (bench/mongoupstream, SQLite)"
  [ -n "${MONGO_STUB:-}" ] && source="the in-memory stand-in (bench/mongoupstream -stub)"
fi
"$work/mongoload" -addr "$upstream" -seed -docs "$ndocs"

listen_port=$(free_port)
cat >"$work/config.yaml" <<YAML
sidecar: bench
log: {format: text, level: info}
approval_rules:
  - name: mongo-destructive
    match: {actions: [DELETE, DROP, AGGREGATE_WRITE]}
listeners:
  - name: mongo
    protocol: mongodb
    listen: 127.0.0.1:$listen_port
    upstream: $upstream
    mode: return
    approval_rules: [mongo-destructive]
YAML
"$bin" run -config "$work/config.yaml" >"$work/sidecar.log" 2>&1 &
pids+=($!)
wait_port "$listen_port" || { echo "mongodb.sh: the sidecar did not start; its log:" >&2; cat "$work/sidecar.log" >&2; exit 1; }

load() { # host:port; prints the mongoload result line
  "$work/mongoload" -addr "$1" -c "$conns" -d "${seconds}s" -warmup "$warmup" -docs "$ndocs"
}
field() { # line key
  tr ' ' '\n' <<<"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'
}

printf '\nfind({_id}) on %s, %s connections, %s s per path, same run\n' "$source" "$conns" "$seconds"
printf '%-5s %-22s %10s %8s %8s %8s %8s %8s\n' round path "ops/s" "p50 µs" "p90 µs" "p99 µs" "max µs" errors
for r in $(seq 1 "$rounds"); do
  direct=$(load "$upstream")
  through=$(load "127.0.0.1:$listen_port")
  for row in "direct|$direct" "through the Sidecar|$through"; do
    name=${row%%|*} line=${row#*|}
    printf '%-5s %-22s %10s %8s %8s %8s %8s %8s\n' "$r" "$name" "$(field "$line" rps)" "$(field "$line" p50)" \
      "$(field "$line" p90)" "$(field "$line" p99)" "$(field "$line" max)" "$(field "$line" errors)"
  done
  awk -v d="$(field "$direct" rps)" -v s="$(field "$through" rps)" -v dp="$(field "$direct" p50)" -v sp="$(field "$through" p50)" \
    'BEGIN { printf "%-5s %-22s %9.0f%% %+7d µs added at p50 (%.1f%% per operation)\n", "", "Sidecar / direct", 100 * s / d, sp - dp, 100 * (sp - dp) / dp }'
done
if grep -q 'level=ERROR' "$work/sidecar.log"; then
  echo "sidecar errors:" >&2; grep 'level=ERROR' "$work/sidecar.log" | head -5 >&2
fi
