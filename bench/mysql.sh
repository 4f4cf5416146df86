#!/usr/bin/env bash
# Queries/s of mysqlslap directly against MySQL/MariaDB and through a Sidecar
# mysql listener, in one run with interleaved rounds, printed as a table with
# the ratio and the time the Sidecar adds per query. A comparison, not a test.
#
#   bench/mysql.sh                   # upstream 127.0.0.1:3306, user root, no password
#   MYSQL_CLIENTS=8 MYSQL_QUERIES=50000 MYSQL_ROUNDS=5 bench/mysql.sh
#
# Environment: MYSQL_HOST (127.0.0.1), MYSQL_PORT (3306), MYSQL_USER (root),
# MYSQL_PASSWORD (empty), MYSQL_CLIENTS (4 connections), MYSQL_QUERIES (20000
# per run, over all connections), MYSQL_ROUNDS (3; each round runs every
# workload directly, then through the Sidecar), SIDECAR_BIN (built from this
# checkout when unset).
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
cleanup() {
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
mysqld_pid=$(pgrep -x mariadbd || pgrep -x mysqld || true)
mysqld_pid=${mysqld_pid%%$'\n'*}
hz=$(getconf CLK_TCK)

printf '\nmysqlslap, %s connections, %s queries per run, %s interleaved rounds, same run (load average: %s)\n' \
  "$clients" "$queries" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-6s %12s %12s %8s %12s\n' workload round "direct q/s" "sidecar q/s" "ratio" "added/query"
: >"$work/runs"
sidecar_ticks=0 mysqld_direct=0 mysqld_through=0
for r in $(seq 1 "$rounds"); do
  for w in point varied; do
    m0=$( [ -n "$mysqld_pid" ] && ticks "$mysqld_pid" || echo 0)
    d=$(secs "$port" "$w")
    m1=$( [ -n "$mysqld_pid" ] && ticks "$mysqld_pid" || echo 0)
    t0=$(ticks "$sidecar_pid")
    s=$(secs "$listen_port" "$w")
    t1=$(ticks "$sidecar_pid")
    m2=$( [ -n "$mysqld_pid" ] && ticks "$mysqld_pid" || echo 0)
    if [ -z "$d" ] || [ -z "$s" ]; then
      echo "mysql.sh: a run failed:" >&2
      cat "$work/slap.err" "$work/sidecar.log" >&2
      exit 1
    fi
    sidecar_ticks=$((sidecar_ticks + t1 - t0))
    mysqld_direct=$((mysqld_direct + m1 - m0))
    mysqld_through=$((mysqld_through + m2 - m1))
    echo "$w $d $s" >>"$work/runs"
    awk -v w="$w" -v r="$r" -v d="$d" -v s="$s" -v n="$queries" -v c="$clients" \
      'BEGIN { printf "%-8s %-6s %12.0f %12.0f %7.0f%% %10.0fµs\n", w, r, n / d, n / s, 100 * d / s, c * 1e6 * (s - d) / n }'
  done
done
# Totals: queries over summed time; the median round's ratio resists the
# other load on a shared machine.
for w in point varied; do
  awk -v w="$w" -v n="$queries" -v c="$clients" '$1 == w { d += $2; s += $3; k++; r[k] = $2 / $3 }
    END {
      asort(r); med = (k % 2) ? r[(k + 1) / 2] : (r[k / 2] + r[k / 2 + 1]) / 2
      printf "%-8s %-6s %12.0f %12.0f %7.0f%% %10.0fµs   (median round: %.0f%%)\n", w, "all", k * n / d, k * n / s, 100 * d / s, c * 1e6 * (s - d) / (k * n), 100 * med
    }' "$work/runs"
done
total=$((rounds * 2 * queries))
awk -v t="$sidecar_ticks" -v md="$mysqld_direct" -v mt="$mysqld_through" -v hz="$hz" -v n="$total" -v have="$mysqld_pid" 'BEGIN {
  printf "\nCPU per query: sidecar %.1fµs", 1e6 * t / hz / n
  if (have != "") printf "; upstream server %.1fµs direct, %.1fµs through the sidecar (its CPU includes any other clients of that server)", 1e6 * md / hz / n, 1e6 * mt / hz / n
  printf "\n"
}'
echo "(ratio: Sidecar q/s as a share of direct; added/query: extra latency per query on one connection;"
echo " CPU per query is independent of the machine's other load: on a CPU-bound host it is what the Sidecar costs)"
