#!/usr/bin/env bash
# Queries/s of mysqlslap directly against MySQL/MariaDB, through a bare TCP
# relay (bench/tcprelay: what any extra hop costs here) and through a Sidecar
# mysql listener, in one run with interleaved rounds, printed as a table with
# the ratios, the time the Sidecar adds per query and the CPU each hop
# spends per query. A comparison, not a test.
#
#   bench/mysql.sh                   # upstream 127.0.0.1:3306, user root, no password
#   MYSQL_CLIENTS=8 MYSQL_QUERIES=50000 MYSQL_ROUNDS=5 bench/mysql.sh
#
# Environment: MYSQL_HOST (127.0.0.1), MYSQL_PORT (3306), MYSQL_USER (root),
# MYSQL_PASSWORD (empty), MYSQL_CLIENTS (4 connections), MYSQL_QUERIES (20000
# per run, over all connections), MYSQL_ROUNDS (3; each round runs every
# workload directly, through the relay, then through the Sidecar),
# SIDECAR_BIN (built from this checkout when unset).
#
# Workloads: "point" sends one primary-key SELECT text over and over (the
# analyzer's cache answers by text); "varied" cycles through 1,000 SELECTs
# that differ in their constant (answered by shape after the first). The
# Sidecar runs without a Control Plane: SELECTs need no approval (the rule
# holds DROP, TRUNCATE, DELETE), but every query still goes through the
# analyzer and the gate. mysqlslap comes from Debian's mariadb-client
# package. A scratch database mysqlsql_bench_<pid> is created and dropped.
set -euo pipefail
cd "$(dirname "$0")/.."

host=${MYSQL_HOST:-127.0.0.1}
port=${MYSQL_PORT:-3306}
user=${MYSQL_USER:-root}
password=${MYSQL_PASSWORD:-}
clients=${MYSQL_CLIENTS:-4}
queries=${MYSQL_QUERIES:-20000}
rounds=${MYSQL_ROUNDS:-3}
slap=$(command -v mariadb-slap || command -v mysqlslap || true)
cli=$(command -v mariadb || command -v mysql || true)
[ -n "$slap" ] && [ -n "$cli" ] || { echo "mysql.sh: mysqlslap and the mariadb CLI are needed (apt-get install mariadb-client)" >&2; exit 1; }
command -v go >/dev/null || { echo "mysql.sh: go is not installed" >&2; exit 1; }

work=$(mktemp -d)
db="mysqlsql_bench_$$"
sidecar_pid=""
auth=(-u "$user")
[ -n "$password" ] && auth+=("-p$password")
sql() { "$cli" --protocol=TCP -h "$host" -P "$port" "${auth[@]}" "$@"; }
relay_pid=""
cleanup() {
  [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null && wait "$relay_pid" 2>/dev/null || true
  [ -n "$sidecar_pid" ] && kill "$sidecar_pid" 2>/dev/null && wait "$sidecar_pid" 2>/dev/null || true
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
"$work/tcprelay" -listen 127.0.0.1:0 -upstream "$host:$port" >"$work/relay.addr" 2>"$work/relay.log" &
relay_pid=$!
for _ in $(seq 1 100); do [ -s "$work/relay.addr" ] && break; sleep 0.1; done
relay_port=$(head -n1 "$work/relay.addr" | sed 's/.*://')
[ -n "$relay_port" ] || { echo "mysql.sh: the relay did not start:" >&2; cat "$work/relay.log" >&2; exit 1; }

listen_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
  echo $((20000 + RANDOM % 20000)))
cat >"$work/config.yaml" <<YAML
sidecar: bench
log: {format: text, level: warn}
approval_rules:
  - name: db-destructive
    match: {actions: [DROP, TRUNCATE, DELETE]}
listeners:
  - name: my
    protocol: mysql
    listen: 127.0.0.1:$listen_port
    upstream: $host:$port
    mode: return
    approval_rules: [db-destructive]
YAML
"$bin" run -config "$work/config.yaml" >"$work/sidecar.log" 2>&1 &
sidecar_pid=$!
up=""
for _ in $(seq 1 100); do
  "$cli" --protocol=TCP -h 127.0.0.1 -P "$listen_port" "${auth[@]}" -e 'SELECT 1' >/dev/null 2>&1 && { up=1; break; }
  sleep 0.1
done
[ -n "$up" ] || { echo "mysql.sh: the sidecar did not answer; its log:" >&2; cat "$work/sidecar.log" >&2; exit 1; }

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
for i in $(seq 1 1000); do printf 'SELECT c FROM sbtest WHERE id = %d;\n' "$i"; done >"$work/varied.sql"

secs() { # port workload: seconds one mysqlslap run takes for $queries queries
  local q
  case $2 in
  point) q="SELECT c FROM sbtest WHERE id = 500" ;;
  varied) q="$work/varied.sql" ;;
  esac
  "$slap" --protocol=TCP -h 127.0.0.1 -P "$1" "${auth[@]}" --create-schema="$db" --no-drop \
    --concurrency="$clients" --iterations=1 --number-of-queries="$queries" --delimiter=';' --query="$q" 2>"$work/slap.err" |
    awk '/Average number of seconds/ { if ($(NF-1) > 0) print $(NF-1); exit }'
}
ticks() { # pid: CPU time the process has used, in clock ticks (user + system)
  awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

printf '\nmysqlslap, %s connections, %s queries per run, %s interleaved rounds, same run (load average: %s)\n' \
  "$clients" "$queries" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-5s %11s %11s %11s %7s %7s %12s\n' workload round "direct q/s" "relay q/s" "sidecar q/s" "relay" "sidecar" "added/query"
: >"$work/runs"
relay_ticks=0 sidecar_ticks=0
for r in $(seq 1 "$rounds"); do
  for w in point varied; do
    d=$(secs "$port" "$w")
    t0=$(ticks "$relay_pid")
    x=$(secs "$relay_port" "$w")
    t1=$(ticks "$relay_pid")
    s0=$(ticks "$sidecar_pid")
    s=$(secs "$listen_port" "$w")
    s1=$(ticks "$sidecar_pid")
    if [ -z "$d" ] || [ -z "$x" ] || [ -z "$s" ]; then
      echo "mysql.sh: a run failed:" >&2
      cat "$work/slap.err" "$work/sidecar.log" >&2
      exit 1
    fi
    relay_ticks=$((relay_ticks + t1 - t0))
    sidecar_ticks=$((sidecar_ticks + s1 - s0))
    echo "$w $d $x $s" >>"$work/runs"
    awk -v w="$w" -v r="$r" -v d="$d" -v x="$x" -v s="$s" -v n="$queries" -v c="$clients" \
      'BEGIN { printf "%-8s %-5s %11.0f %11.0f %11.0f %6.0f%% %6.0f%% %10.0fµs\n", w, r, n / d, n / x, n / s, 100 * d / x, 100 * d / s, c * 1e6 * (s - d) / n }'
  done
done
# Totals: queries over summed time; the median round's ratios resist the
# other load on a shared machine.
for w in point varied; do
  awk -v w="$w" -v n="$queries" -v c="$clients" '
    function median(a, k) { asort(a); return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
    $1 == w { d += $2; x += $3; s += $4; k++; rx[k] = $2 / $3; rs[k] = $2 / $4 }
    END {
      printf "%-8s %-5s %11.0f %11.0f %11.0f %6.0f%% %6.0f%% %10.0fµs\n", w, "all", k * n / d, k * n / x, k * n / s, 100 * d / x, 100 * d / s, c * 1e6 * (s - d) / (k * n)
      printf "%-8s %-5s %11s %11s %11s %6.0f%% %6.0f%%\n", w, "med.", "", "", "", 100 * median(rx, k), 100 * median(rs, k)
    }' "$work/runs"
done
total=$((rounds * 2 * queries))
awk -v r="$relay_ticks" -v s="$sidecar_ticks" -v hz="$(getconf CLK_TCK)" -v n="$total" 'BEGIN {
  printf "\nCPU per query: bare relay %.1fµs, Sidecar %.1fµs (the Sidecar'"'"'s own cost beyond a bare hop: %.1fµs)\n", 1e6 * r / hz / n, 1e6 * s / hz / n, 1e6 * (s - r) / hz / n
}'
echo "(relay, sidecar: q/s as a share of direct; added/query: the Sidecar's extra latency per query on one"
echo " connection; med.: the median round. CPU per query does not depend on the machine's other load.)"
