#!/usr/bin/env bash
# Queries/s, latency percentiles and CPU per query of primary-key SELECTs
# directly against MySQL/MariaDB, through a bare TCP relay (bench/tcprelay:
# what any extra hop costs here) and through a Sidecar mysql listener, in one
# run with interleaved rounds, at one connection (serial, as an agent sends)
# and at MYSQL_CLIENTS connections. It prints each run, the medians of the
# rounds, and the readings of "what the listener adds per query"
# (docs/performance.md). A comparison, not a test.
#
#   bench/mysql.sh                   # upstream 127.0.0.1:3306, user root, no password
#   MYSQL_CLIENTS=8 MYSQL_SECONDS=10 MYSQL_ROUNDS=5 bench/mysql.sh
#   SIDECAR_BASE_BIN=/tmp/old-sidecar bench/mysql.sh   # an older build as a fourth path, "base"
#
# Environment: MYSQL_HOST (127.0.0.1), MYSQL_PORT (3306), MYSQL_USER (root),
# MYSQL_PASSWORD (empty), MYSQL_CLIENTS (4 connections: the second
# concurrency; the first is 1), MYSQL_SECONDS (2 per run), MYSQL_WARMUP (0.5s),
# MYSQL_ROUNDS (7; each round runs every concurrency and workload directly,
# through the relay, then through the Sidecar), MYSQL_WORKLOADS ("point
# varied"), MYSQL_SERVER_PID (the server process whose CPU is read; found with
# pidof mariadbd/mysqld for a local server), SIDECAR_BIN (built from this
# checkout when unset), SIDECAR_BASE_BIN.
#
# The load generator is bench/mysqlload (the Go driver, text protocol, one
# query in flight per connection). Workloads: "point" sends one
# primary-key SELECT text over and over (the analyzer's cache answers by
# text); "varied" cycles through 1,000 SELECTs that differ in their constant
# (answered by shape after the first). The Sidecar runs without a Control
# Plane: SELECTs need no approval (the rule holds DROP, TRUNCATE, DELETE), but
# every query still goes through the analyzer and the gate. The mariadb CLI
# (Debian's mariadb-client) prepares a scratch database mysqlsql_bench_<pid>,
# dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

host=${MYSQL_HOST:-127.0.0.1}
port=${MYSQL_PORT:-3306}
user=${MYSQL_USER:-root}
password=${MYSQL_PASSWORD:-}
clients=${MYSQL_CLIENTS:-4}
seconds=${MYSQL_SECONDS:-2}
warmup=${MYSQL_WARMUP:-0.5s}
rounds=${MYSQL_ROUNDS:-7}
workloads=${MYSQL_WORKLOADS:-point varied}
cli=$(command -v mariadb || command -v mysql || true)
[ -n "$cli" ] || { echo "mysql.sh: the mariadb CLI is needed (apt-get install mariadb-client)" >&2; exit 1; }
. bench/lib.sh
command -v go >/dev/null || { echo "mysql.sh: go is not installed" >&2; exit 1; }

work=$(mktemp -d)
db="mysqlsql_bench_$$"
sidecar_pid=""
base_pid=""
auth=(-u "$user")
[ -n "$password" ] && auth+=("-p$password")
sql() { "$cli" --protocol=TCP -h "$host" -P "$port" "${auth[@]}" "$@"; }
relay_pid=""
cleanup() {
  [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null && wait "$relay_pid" 2>/dev/null || true
  [ -n "$sidecar_pid" ] && kill "$sidecar_pid" 2>/dev/null && wait "$sidecar_pid" 2>/dev/null || true
  [ -n "$base_pid" ] && kill "$base_pid" 2>/dev/null && wait "$base_pid" 2>/dev/null || true
  sql -e "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  echo "building the sidecar…" >&2
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi
go build -o "$work/tcprelay" ./bench/tcprelay
go build -o "$work/mysqlload" ./bench/mysqlload
"$work/tcprelay" -listen 127.0.0.1:0 -upstream "$host:$port" >"$work/relay.addr" 2>"$work/relay.log" &
relay_pid=$!
for _ in $(seq 1 100); do [ -s "$work/relay.addr" ] && break; sleep 0.1; done
relay_port=$(head -n1 "$work/relay.addr" | sed 's/.*://')
[ -n "$relay_port" ] || { echo "mysql.sh: the relay did not start:" >&2; cat "$work/relay.log" >&2; exit 1; }

start_sidecar() { # binary port name: starts a Sidecar with the bench config; its pid in $started
  cat >"$work/$3.yaml" <<YAML
sidecar: bench
log: {format: text, level: warn}
approval_rules:
  - name: db-destructive
    match: {actions: [DROP, TRUNCATE, DELETE]}
listeners:
  - name: my
    protocol: mysql
    listen: 127.0.0.1:$2
    upstream: $host:$port
    mode: return
    approval_rules: [db-destructive]
YAML
  "$1" run -config "$work/$3.yaml" >"$work/$3.log" 2>&1 &
  started=$!
  for _ in $(seq 1 100); do
    "$cli" --protocol=TCP -h 127.0.0.1 -P "$2" "${auth[@]}" -e 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "mysql.sh: the sidecar ($1) did not answer; its log:" >&2
  cat "$work/$3.log" >&2
  exit 1
}
start_sidecars "$bin"
server_pid=${MYSQL_SERVER_PID:-}
if [ -z "$server_pid" ] && { [ "$host" = 127.0.0.1 ] || [ "$host" = localhost ]; }; then
  server_pid=$(pidof mariadbd || pidof mysqld || true)
  server_pid=${server_pid%% *}
fi

echo "preparing $db (1,000 rows)…" >&2
sql -e "CREATE DATABASE $db; CREATE TABLE $db.sbtest (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(60) NOT NULL)"
{
  printf 'INSERT INTO %s.sbtest VALUES ' "$db"
  for i in $(seq 1 1000); do
    [ "$i" -gt 1 ] && printf ','
    printf "(%d,%d,'%s')" "$i" $((i * 7)) "row-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
  done
  printf ';\n'
} | sql
runs="$work/runs"
: >"$runs"
printf '\nbench/mysqlload, 1 and %s connections, %s s per run, %s interleaved rounds, same run (load average: %s)\n' \
  "$clients" "$seconds" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'server: %s:%s%s; CPU per query in µs (proxy, server, client)\n' "$host" "$port" "${server_pid:+ (pid $server_pid)}"
bench_header
for r in $(seq 1 "$rounds"); do
  for c in 1 "$clients"; do
    for w in $workloads; do
      paths=("direct $port -" "relay $relay_port $relay_pid" "sidecar $listen_port $sidecar_pid")
      [ -n "$base_port" ] && paths+=("base $base_port $base_pid")
      for pp in "${paths[@]}"; do
        read -r name p pid <<<"$pp"
        [ "$pid" = - ] && pid=""
        measure "$r" "$c" "$w" "$name" "$server_pid" "$pid" \
          "$work/mysqlload" -addr "127.0.0.1:$p" -user "$user" -password "$password" -db "$db" -c "$c" -d "${seconds}s" -warmup "$warmup" -workload "$w"
      done
    done
  done
done
bench_summary
if grep -q 'level=ERROR' "$work"/sidecar.log; then
  echo "sidecar errors:" >&2; grep 'level=ERROR' "$work/sidecar.log" | head -5 >&2
fi
