#!/usr/bin/env bash
# find by _id: operations/s, latency percentiles and CPU per operation
# directly against a MongoDB-compatible upstream, through a bare TCP relay
# (bench/tcprelay: what any extra hop costs here) and through a Sidecar
# mongodb listener, in one run with interleaved rounds, at one connection
# (serial, as an agent sends) and at MONGO_CONNS connections. It prints each
# run, the medians of the rounds and the readings of "what the listener adds
# per operation" (docs/performance.md). A comparison, not a test.
#
#   bench/mongodb.sh                                  # 1 and 4 connections, 2 s per run, 7 rounds
#   MONGO_CONNS=8 MONGO_SECONDS=10 MONGO_ROUNDS=3 bench/mongodb.sh
#   MONGO_UPSTREAM=127.0.0.1:27017 bench/mongodb.sh   # a real mongod instead
#   MONGO_STUB=1 bench/mongodb.sh                     # an in-memory stand-in: the listener's own cost
#   SIDECAR_BASE_BIN=/tmp/old-sidecar bench/mongodb.sh  # an older build as a fourth path, "base"
#
# Environment: MONGO_CONNS (4: the second concurrency; the first is 1),
# MONGO_SECONDS (2 per run), MONGO_WARMUP (0.5s), MONGO_ROUNDS (7: each round
# runs both concurrencies directly, through the relay, then through the
# Sidecar), MONGO_DOCS (1000), MONGO_UPSTREAM (host:port; unset: FerretDB
# v1.24.2 embedded in bench/mongoupstream, SQLite handler; MONGO_STUB=1: its
# in-memory stand-in, which answers at once and so shows what the hop adds),
# MONGO_SERVER_PID (the server process whose CPU is read with MONGO_UPSTREAM),
# SIDECAR_BIN (built from this checkout when unset), SIDECAR_BASE_BIN. The
# load generator (bench/mongoload, the Go driver) keeps one find in flight
# per connection. The Sidecar runs without a Control Plane: finds need no
# approval (the listener's rule holds DELETE, DROP and AGGREGATE_WRITE), but
# every command still goes through the analysis and the gate. Nothing is
# installed; everything is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

conns=${MONGO_CONNS:-4}
seconds=${MONGO_SECONDS:-2}
warmup=${MONGO_WARMUP:-0.5s}
rounds=${MONGO_ROUNDS:-7}
ndocs=${MONGO_DOCS:-1000}
command -v go >/dev/null || { echo "mongodb.sh: go is not installed" >&2; exit 1; }
. bench/lib.sh

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building the load generator, the upstream and the sidecar…" >&2
go build -o "$work/mongoload" ./bench/mongoload
go build -o "$work/tcprelay" ./bench/tcprelay
bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi


upstream=${MONGO_UPSTREAM:-}
source="MONGO_UPSTREAM"
server_pid=${MONGO_SERVER_PID:-}
if [ -z "$upstream" ]; then
  go build -o "$work/mongoupstream" ./bench/mongoupstream
  stub=()
  [ -n "${MONGO_STUB:-}" ] && stub=(-stub)
  "$work/mongoupstream" -listen 127.0.0.1:0 "${stub[@]}" >"$work/upstream.addr" 2>"$work/upstream.log" &
  pids+=($!)
  server_pid=$!
  for _ in $(seq 1 300); do [ -s "$work/upstream.addr" ] && break; sleep 0.1; done
  upstream=$(head -n1 "$work/upstream.addr")
  [ -n "$upstream" ] || { echo "mongodb.sh: the upstream did not start:" >&2; cat "$work/upstream.log" >&2; exit 1; }
  source="FerretDB v1.24.2 embedded (bench/mongoupstream, SQLite)"
  [ -n "${MONGO_STUB:-}" ] && source="the in-memory stand-in (bench/mongoupstream -stub)"
fi
"$work/mongoload" -addr "$upstream" -seed -docs "$ndocs"

"$work/tcprelay" -listen 127.0.0.1:0 -upstream "$upstream" >"$work/relay.addr" 2>"$work/relay.log" &
pids+=($!)
relay_pid=$!
for _ in $(seq 1 100); do [ -s "$work/relay.addr" ] && break; sleep 0.1; done
relay_port=$(head -n1 "$work/relay.addr" | sed 's/.*://')
[ -n "$relay_port" ] || { echo "mongodb.sh: the relay did not start:" >&2; cat "$work/relay.log" >&2; exit 1; }

start_sidecar() { # binary port name: starts a Sidecar with the bench config; its pid in $started
  cat >"$work/$3.yaml" <<YAML
sidecar: bench
log: {format: text, level: info}
approval_rules:
  - name: mongo-destructive
    match: {actions: [DELETE, DROP, AGGREGATE_WRITE]}
listeners:
  - name: mongo
    protocol: mongodb
    listen: 127.0.0.1:$2
    upstream: $upstream
    mode: return
    approval_rules: [mongo-destructive]
YAML
  "$1" run -config "$work/$3.yaml" >"$work/$3.log" 2>&1 &
  started=$!
  pids+=($started)
  wait_port "$2" || { echo "mongodb.sh: the sidecar ($1) did not start; its log:" >&2; cat "$work/$3.log" >&2; exit 1; }
}
start_sidecars "$bin"

runs="$work/runs"
: >"$runs"
printf '\nfind({_id}) on %s, 1 and %s connections, %s s per run, %s interleaved rounds, same run (load average: %s)\n' \
  "$source" "$conns" "$seconds" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'CPU per operation in µs (proxy, server, client)\n'
bench_header
host=${upstream%:*} port=${upstream##*:}
for r in $(seq 1 "$rounds"); do
  for c in 1 "$conns"; do
    paths=("direct $port -" "relay $relay_port $relay_pid" "sidecar $listen_port $sidecar_pid")
    [ -n "$base_port" ] && paths+=("base $base_port $base_pid")
    for pp in "${paths[@]}"; do
      read -r name p pid <<<"$pp"
      [ "$pid" = - ] && pid=""
      a="127.0.0.1:$p"
      [ "$name" = direct ] && a=$upstream
      measure "$r" "$c" find "$name" "$server_pid" "$pid" \
        "$work/mongoload" -addr "$a" -c "$c" -d "${seconds}s" -warmup "$warmup" -docs "$ndocs"
    done
  done
done
bench_summary
if grep -q 'level=ERROR' "$work"/sidecar.log; then
  echo "sidecar errors:" >&2; grep 'level=ERROR' "$work/sidecar.log" | head -5 >&2
fi
