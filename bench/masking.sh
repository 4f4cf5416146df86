#!/usr/bin/env bash
# What a masking rule costs (docs/masking.md, "Cost"), in one run with
# interleaved rounds, against the same listener without a rule and the
# direct connection:
#
#   direct     the upstream itself
#   no rule    a Sidecar listener with an approval rule (effects DROP, DELETE,
#              TRUNCATE) and no
#              masking rule: what every listener costs today
#   pii        the same listener with the pii rule (all nine entities, mask)
#   before     with SIDECAR_BASE_BIN: that build (e.g. the commit before
#              masking) with the no-rule config: "no rule costs nothing" is
#              the before and no-rule rows being equal within noise
#
# over three workloads:
#
#   pgbench -S   one indexed SELECT per transaction (pgbench -S, simple
#                protocol): no text column in its result, so the rule reads
#                the row descriptions and skips the integers
#   10k rows     SELECT of 10,000 rows of four text columns (an email in
#                one row of ten, a card in one of twenty), pgbench -f
#   http JSON    wrk GETs of a 2.2 KB JSON body of 20 users (emails, cards)
#
# Each row: operations/s, and the CPU the proxy used per operation (user +
# system of its process over the run, in µs; "-" for direct): the number
# that the machine's load blurs least. A comparison, not a test.
#
#   bench/masking.sh
#   MASK_SECONDS=20 MASK_ROUNDS=3 bench/masking.sh
#   MASK_WORKLOADS="http" bench/masking.sh
#
# Environment: MASK_SECONDS (8 per run), MASK_ROUNDS (2), MASK_WORKLOADS
# ("pgbench rows http"), PGHOST/PGPORT/PGUSER (127.0.0.1, 5432, postgres),
# SIDECAR_BIN (built from this checkout when unset), SIDECAR_BASE_BIN (adds
# the before row). pgbench, psql and wrk
# come from `make deps`.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${MASK_SECONDS:-8}
rounds=${MASK_ROUNDS:-2}
workloads=${MASK_WORKLOADS:-pgbench rows http}
pghost=${PGHOST:-127.0.0.1} pgport=${PGPORT:-5432} pguser=${PGUSER:-postgres}
for c in pgbench psql wrk go; do
  command -v "$c" >/dev/null || { echo "masking.sh: $c is not installed (make deps)" >&2; exit 1; }
done

work=$(mktemp -d)
db="hoop_maskbench_$$"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  psql -X -q -h "$pghost" -p "$pgport" -U "$pguser" -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
. bench/lib.sh # free_port, wait_port, ticks

echo "building the sidecar and the http upstream…" >&2
bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi
go build -o "$work/httpupstream" ./bench/httpupstream

# The http body: 20 users, each with an email and a card number.
python3 - >"$work/users.json" <<'PY'
import json
cards = ["4111 1111 1111 1111", "5500 0000 0000 0004", "3400 0000 0000 009", "6011 0000 0000 0004"]
users = [{"id": i, "name": "user %d" % i, "email": "user%d@example.com" % i, "card": cards[i % 4],
          "note": "ordered %d items on 2024-01-%02d" % (i, i % 28 + 1)} for i in range(20)]
print(json.dumps({"users": users}))
PY
"$work/httpupstream" -listen 127.0.0.1:0 -body "$work/users.json" >"$work/upstream.addr" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/upstream.addr" ] && break; sleep 0.1; done
upstream=$(head -1 "$work/upstream.addr")

echo "preparing $db…" >&2
psql -X -q -h "$pghost" -p "$pgport" -U "$pguser" -d postgres -c "CREATE DATABASE $db" >/dev/null
pgbench -i -q -s 1 -h "$pghost" -p "$pgport" -U "$pguser" "$db" >/dev/null 2>&1
psql -X -q -h "$pghost" -p "$pgport" -U "$pguser" -d "$db" >/dev/null <<'SQL'
CREATE TABLE masking_rows AS
SELECT i AS id,
       'customer ' || i AS name,
       CASE WHEN i % 10 = 0 THEN 'user' || i || '@example.com' ELSE 'no contact on file' END AS contact,
       CASE WHEN i % 20 = 0 THEN '4111 1111 1111 1111' ELSE 'paid by invoice ' || i END AS payment,
       'order ' || i || ' shipped on 2024-01-15 to aisle ' || (i % 7) AS note
FROM generate_series(1, 10000) AS i;
SQL
echo 'SELECT * FROM masking_rows;' >"$work/rows.sql"

declare -A port_of pid_of
start_sidecar() { # name masking_rules [binary]
  local pg web b=${3:-$bin} masks="masking_rules: [$2]"
  [ -n "${3:-}" ] && masks="" # an older build may not know the key
  pg=$(free_port) web=$(free_port)
  cat >"$work/$1.yaml" <<YAML
sidecar: bench
log: {format: text, level: warn}
approval_rules:
  - name: destructive
    match: {effects: [DROP, DELETE, TRUNCATE]}
masking_rules:
  - name: pii
    entities: [EMAIL_ADDRESS, CREDIT_CARD, IBAN_CODE, US_SSN, PHONE_NUMBER, IP_ADDRESS, AWS_ACCESS_KEY, JWT, PRIVATE_KEY]
    strategy: mask
YAML
  [ -n "${3:-}" ] && sed -i '/^masking_rules:/,$d' "$work/$1.yaml"
  cat >>"$work/$1.yaml" <<YAML
listeners:
  - {name: pg, protocol: postgres, listen: "127.0.0.1:$pg", upstream: "$pghost:$pgport", mode: return,
     approval_rules: [destructive], $masks}
  - {name: web, protocol: http, listen: "127.0.0.1:$web", upstream: "http://$upstream", mode: return,
     approval_rules: [destructive], $masks}
YAML
  "$b" run -config "$work/$1.yaml" >"$work/$1.log" 2>&1 &
  pids+=($!)
  pid_of[$1]=$!
  port_of[$1.pg]=$pg port_of[$1.http]=$web
  wait_port "$pg" && wait_port "$web" || { echo "masking.sh: the $1 sidecar did not start:" >&2; cat "$work/$1.log" >&2; exit 1; }
}
start_sidecar "no rule" ""
start_sidecar pii pii
paths=(direct "no rule" pii)
if [ -n "${SIDECAR_BASE_BIN:-}" ]; then
  start_sidecar before "" "$SIDECAR_BASE_BIN"
  paths=(direct before "no rule" pii)
fi
port_of[direct.pg]=$pgport port_of[direct.http]=${upstream##*:}

# one workload path: prints "ops/s cpu_µs_per_op"
one() {
  local w=$1 p=$2 pid=${pid_of[$2]:-} t0 t1 out ops n
  t0=$(ticks "$pid")
  case $w in
  pgbench | rows)
    local args=(-S) c=8
    [ "$w" = rows ] && args=(-f "$work/rows.sql") c=2
    out=$(pgbench "${args[@]}" -n -M simple -c "$c" -j 2 -T "$seconds" -h 127.0.0.1 -p "${port_of[$p.pg]}" -U "$pguser" "$db" 2>&1) ||
      { echo "masking.sh: pgbench through $p failed: $out" >&2; return 1; }
    ops=$(awk '/^tps = / {printf "%.0f", $3; exit}' <<<"$out")
    n=$(awk '/^number of transactions actually processed: / {print $6; exit}' <<<"$out")
    ;;
  http)
    out=$(wrk -t2 -c32 -d"${seconds}s" "http://127.0.0.1:${port_of[$p.http]}/users" 2>&1)
    ops=$(awk '$1 == "Requests/sec:" {printf "%.0f", $2}' <<<"$out")
    n=$(awk '/requests in/ {print $1; exit}' <<<"$out")
    if grep -q "Non-2xx" <<<"$out"; then echo "masking.sh: non-2xx answers through $p" >&2; fi
    ;;
  esac
  t1=$(ticks "$pid")
  awk -v a="$t0" -v b="$t1" -v n="$n" -v hz="$(getconf CLK_TCK)" -v ops="$ops" -v p="$p" \
    'BEGIN { if (p == "direct" || n == 0) printf "%s -\n", ops; else printf "%s %.1f\n", ops, (b - a) / hz * 1e6 / n }'
}

# A check before measuring: through the pii listener no email is in clear.
if psql -X -At -h 127.0.0.1 -p "${port_of[pii.pg]}" -U "$pguser" -d "$db" -c 'SELECT contact FROM masking_rows WHERE id = 10' | grep -q '@example.com'; then
  echo "masking.sh: the pii listener sent an email in clear; is masking built in?" >&2
  exit 1
fi

printf '\nmasking cost: %s s per run, %s interleaved rounds; load average %s\n' "$seconds" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-9s %-8s %10s %12s\n' round workload path "ops/s" "proxy µs/op"
declare -A sum_ops sum_cpu
for r in $(seq 1 "$rounds"); do
  for w in $workloads; do
    for p in "${paths[@]}"; do
      read -r ops cpu <<<"$(one "$w" "$p")"
      printf '%-5s %-9s %-8s %10s %12s\n' "$r" "$w" "$p" "$ops" "$cpu"
      sum_ops[$w.$p]=$(awk -v a="${sum_ops[$w.$p]:-0}" -v b="$ops" 'BEGIN {print a + b}')
      [ "$cpu" != - ] && sum_cpu[$w.$p]=$(awk -v a="${sum_cpu[$w.$p]:-0}" -v b="$cpu" 'BEGIN {print a + b}')
    done
  done
done

printf '\nmeans over %s rounds\n' "$rounds"
printf '| workload | path | ops/s | proxy CPU µs/op | ops/s ÷ no rule | CPU ÷ no rule |\n|---|---|---|---|---|---|\n'
for w in $workloads; do
  for p in "${paths[@]}"; do
    awk -v w="$w" -v p="$p" -v o="${sum_ops[$w.$p]}" -v c="${sum_cpu[$w.$p]:-}" -v o0="${sum_ops[$w.no rule]}" \
      -v c0="${sum_cpu[$w.no rule]}" -v r="$rounds" 'BEGIN {
        cpu = (c == "") ? "-" : sprintf("%.1f", c / r)
        ro = (p == "direct") ? "-" : sprintf("%.2f×", o / o0)
        rc = (c == "") ? "-" : sprintf("%.2f×", c / c0)
        printf "| %s | %s | %.0f | %s | %s | %s |\n", w, p, o / r, cpu, ro, rc }'
  done
done
