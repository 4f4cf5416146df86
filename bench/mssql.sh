#!/usr/bin/env bash
# Statements/s and latency percentiles of go-mssqldb directly against a SQL
# Server upstream, through a bare TCP relay (bench/tcprelay: what any extra
# hop costs here) and through a Sidecar mssql listener on the same upstream,
# in one run, printed as a table with the ratios and the CPU each proxy
# spends per statement (user+system of its process during its run, divided
# by the statements; on the direct row, the stand-in server's). The
# Sidecar's CPU above the relay is given as a share of the relay's and of
# the direct statement's (client + server, the reading bench/mysql.sh and
# bench/mongodb.sh use: docs/performance.md). A comparison, not a test.
#
#   bench/mssql.sh                                    # the stand-in upstream, 4 connections, 10 s each way
#   MSSQL_CONNS=8 MSSQL_SECONDS=20 MSSQL_ROUNDS=3 bench/mssql.sh
#   MSSQL_UPSTREAM=127.0.0.1:1433 MSSQL_PASSWORD=… bench/mssql.sh   # a real SQL Server
#
# Environment: MSSQL_CONNS (4), MSSQL_SECONDS (10), MSSQL_WARMUP (1s),
# MSSQL_ROUNDS (1: each round measures every workload directly, then
# through the Sidecar), MSSQL_ROWS (1000), MSSQL_UPSTREAM (host:port; unset:
# the suite's stand-in, bench/mssqlupstream, which answers at once and so
# shows what the listener adds), MSSQL_USER (sa), MSSQL_PASSWORD (the
# stand-in's when unset), SIDECAR_BIN (built from this checkout when unset).
# The load generator (bench/mssqlload, go-mssqldb v1.11.2, encrypt=disable)
# keeps one statement in flight per connection; workloads: "batch" (a
# SELECT by id as SQLBatch text, a new constant each time) and "rpc" (the
# same as sp_executesql with @p1). The Sidecar runs without a Control
# Plane: SELECTs need no approval (the rule holds DROP, TRUNCATE, DELETE),
# but every statement still goes through the T-SQL analyzer and the gate.
# A real upstream gets a database hoop_bench (table items); nothing is
# installed; everything else is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

conns=${MSSQL_CONNS:-4}
seconds=${MSSQL_SECONDS:-10}
warmup=${MSSQL_WARMUP:-1s}
rounds=${MSSQL_ROUNDS:-1}
nrows=${MSSQL_ROWS:-1000}
user=${MSSQL_USER:-sa}
password=${MSSQL_PASSWORD:-Hoop-Bench1!}
command -v go >/dev/null || { echo "mssql.sh: go is not installed" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building the load generator, the upstream and the sidecar…" >&2
go build -o "$work/mssqlload" ./bench/mssqlload
go build -o "$work/tcprelay" ./bench/tcprelay
bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi

. bench/lib.sh # free_port, wait_port, field, ticks

upstream=${MSSQL_UPSTREAM:-}
source="SQL Server at $upstream"
if [ -z "$upstream" ]; then
  go build -o "$work/mssqlupstream" ./bench/mssqlupstream
  "$work/mssqlupstream" -listen 127.0.0.1:0 -user "$user" -password "$password" >"$work/upstream.addr" 2>"$work/upstream.log" &
  pids+=($!)
  server_pid=$!
  for _ in $(seq 1 300); do [ -s "$work/upstream.addr" ] && break; sleep 0.1; done
  upstream=$(head -n1 "$work/upstream.addr")
  [ -n "$upstream" ] || { echo "mssql.sh: the upstream did not start:" >&2; cat "$work/upstream.log" >&2; exit 1; }
  source="the stand-in (bench/mssqlupstream: tdstest.Mini, no real SQL Server)"
fi
"$work/mssqlload" -addr "$upstream" -user "$user" -password "$password" -seed -rows "$nrows"

"$work/tcprelay" -listen 127.0.0.1:0 -upstream "$upstream" >"$work/relay.addr" 2>"$work/relay.log" &
pids+=($!)
relay_pid=$!
for _ in $(seq 1 100); do [ -s "$work/relay.addr" ] && break; sleep 0.1; done
relay=$(head -n1 "$work/relay.addr")
[ -n "$relay" ] || { echo "mssql.sh: the relay did not start:" >&2; cat "$work/relay.log" >&2; exit 1; }

listen_port=$(free_port)
cat >"$work/config.yaml" <<YAML
sidecar: bench
log: {format: text, level: warn}
approval_rules:
  - name: db-destructive
    match: {actions: [DROP, TRUNCATE, DELETE]}
listeners:
  - name: sqlserver
    protocol: mssql
    listen: 127.0.0.1:$listen_port
    upstream: $upstream
    mode: return
    approval_rules: [db-destructive]
YAML
"$bin" run -config "$work/config.yaml" >"$work/sidecar.log" 2>&1 &
pids+=($!)
sidecar_pid=$!
wait_port "$listen_port" || { echo "mssql.sh: the sidecar did not start; its log:" >&2; cat "$work/sidecar.log" >&2; exit 1; }

load() { # host:port workload [proxy pid]; prints the mssqlload result line, with cpu_us= the proxy's CPU per statement
  local t0 t1 line
  t0=$(ticks "${3:-}")
  line=$("$work/mssqlload" -addr "$1" -user "$user" -password "$password" -w "$2" -c "$conns" -d "${seconds}s" \
    -warmup "$warmup" -rows "$nrows" 2>>"$work/load.err")
  t1=$(ticks "${3:-}")
  # The CPU of the warm-up counts too: divided by the measured statements it
  # overstates every proxy alike, by warmup/seconds at most.
  echo "$line cpu_us=$(awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" -v n="$(field "$line" requests)" \
    'BEGIN { if (a < 0 || b < 0 || n == 0 || (a == 0 && b == 0)) print "-"; else printf "%.1f", 1e6 * (b - a) / hz / n }')"
}

printf '\ngo-mssqldb SELECT by id on %s, %s connections, %s s per path, same run (load average: %s)\n' \
  "$source" "$conns" "$seconds" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-6s %-22s %10s %8s %8s %8s %8s %8s %10s\n' round work path "stmts/s" "p50 µs" "p90 µs" "p99 µs" "max µs" errors "cpu µs/st"
for r in $(seq 1 "$rounds"); do
  for w in batch rpc; do
    direct=$(load "$upstream" "$w" "${server_pid:-}")
    relayed=$(load "$relay" "$w" "$relay_pid")
    through=$(load "127.0.0.1:$listen_port" "$w" "$sidecar_pid")
    for row in "direct|$direct" "bare TCP relay|$relayed" "through the Sidecar|$through"; do
      name=${row%%|*} line=${row#*|}
      printf '%-5s %-6s %-22s %10s %8s %8s %8s %8s %8s %10s\n' "$r" "$w" "$name" "$(field "$line" rps)" "$(field "$line" p50)" \
        "$(field "$line" p90)" "$(field "$line" p99)" "$(field "$line" max)" "$(field "$line" errors)" "$(field "$line" cpu_us)"
    done
    awk -v d="$(field "$direct" rps)" -v b="$(field "$relayed" rps)" -v s="$(field "$through" rps)" -v dp="$(field "$direct" p50)" \
      -v bp="$(field "$relayed" p50)" -v sp="$(field "$through" p50)" \
      -v bc="$(field "$relayed" cpu_us)" -v sc="$(field "$through" cpu_us)" -v ds="$(field "$direct" cpu_us)" -v dl="$(field "$direct" cpu)" \
      -v dsrc="$([ -n "${server_pid:-}" ] && echo "client + stand-in server" || echo "client only")" 'BEGIN {
        dc = (ds == "-" ? 0 : ds) + dl
        printf "%-5s %-6s %-22s %9.0f%% %+7d µs added at p50\n", "", "", "Sidecar / direct", (d > 0 ? 100 * s / d : 0), sp - dp
        printf "%-5s %-6s %-22s %9.0f%% %+7d µs added at p50\n", "", "", "Sidecar / relay", (b > 0 ? 100 * s / b : 0), sp - bp
        if (bc != "-" && sc != "-" && bc > 0) {
          printf "%-5s %-6s %-22s %+9.1f µs CPU per statement above the relay: %+.0f%% of the relay'"'"'s", "", "", "Sidecar - relay", sc - bc, 100 * (sc - bc) / bc
          if (dc > 0) printf ", %+.0f%% of the direct statement'"'"'s (%s %.1f µs)", 100 * (sc - bc) / dc, dsrc, dc
          printf "\n"
        } }'
  done
done
if [ -s "$work/load.err" ]; then
  echo "load generator errors:" >&2; sort -u "$work/load.err" | head -5 >&2
fi
if grep -q 'level=ERROR' "$work/sidecar.log"; then
  echo "sidecar errors:" >&2; grep 'level=ERROR' "$work/sidecar.log" | head -5 >&2
fi
