#!/usr/bin/env bash
# pgbench -S (read-only, one indexed SELECT per transaction) through five
# paths in one run, rounds interleaved, printed as a table with the ratios:
#
#   direct       PostgreSQL itself
#   pgbouncer    Debian's pgbouncer, session mode (the reference proxy)
#   relay        bench/tcprelay: a bare Go TCP relay, goroutine per direction
#                (the Go ceiling: no parsing, no decisions)
#   sidecar      the Sidecar's postgres listener, no Control Plane, return
#                mode, a rule that holds DROP/TRUNCATE/DELETE (SELECTs need no
#                approval, but every statement goes through the analyzer and
#                the gate), no audit trail
#   sidecar+audit  the same with audit.file set (every allow is recorded)
#   sidecar@REV    with PGBENCH_BASE=REV: the Sidecar built from that git
#                revision (e.g. the commit before a change), same config
#
# and, when named in PGBENCH_PATHS (not by default):
#
#   relay-blocking  bench/tcprelay -mode blocking: a goroutine per direction
#                on blocking sockets (a read waits on its own OS thread)
#   relay-read   bench/tcprelay -mode read: a goroutine per direction that
#                reads into a buffer and writes it (the Sidecar's shape)
#   relay-wait   bench/tcprelay -mode wait: relay-read without the read that
#                finds nothing (after a short read it waits for readiness)
#   relay-epoll  bench/tcprelay -mode epoll: every connection on one OS
#                thread, epoll through golang.org/x/sys/unix (pgbouncer's shape)
#   sidecar-1cpu the Sidecar with GOMAXPROCS=1: one thread runs Go code at a
#                time, as pgbouncer's one thread (and as Go sets it by itself
#                in a container limited to one CPU)
#
# for each query mode (simple, prepared): TPS, average and p99 latency, and
# the proxy's own CPU time per transaction (user+system of its process
# during the run, divided by the transactions: the cost that the machine's
# load does not blur), the whole machine's busy CPU per transaction
# (pgbench, PostgreSQL, the proxy and the kernel: what TPS is bound by once
# no CPU is idle) and the share of CPU time left idle, then the memory one idle proxied
# connection costs (RSS growth of each proxy with PGBENCH_IDLE connections
# open, divided by their number; for the Sidecar also its Go heap and
# stacks in use after a collection, which RSS blurs with garbage). A comparison, not a test: the machine is
# shared, so only rows of the same run compare; the load average is printed.
#
#   bench/pgbench.sh
#   PGBENCH_SECONDS=20 PGBENCH_ROUNDS=3 bench/pgbench.sh
#   PGBENCH_PATHS="pgbouncer sidecar" PGBENCH_MODES=prepared bench/pgbench.sh
#
# Environment: PGBENCH_HOST (127.0.0.1), PGBENCH_PORT (5432), PGBENCH_USER
# (postgres), PGBENCH_CLIENTS (8), PGBENCH_THREADS (2), PGBENCH_SECONDS (10),
# PGBENCH_ROUNDS (2), PGBENCH_SCALE (1), PGBENCH_MODES ("simple prepared"),
# PGBENCH_PATHS ("direct pgbouncer relay sidecar sidecar+audit"; also
# relay-read, relay-wait, relay-blocking, relay-epoll, sidecar-1cpu),
# PGBENCH_BASE (a git revision: adds the sidecar@REV row), PGBENCH_EXTRA
# (proxies already running, compared as more rows: "name=port=pid ...", port
# on 127.0.0.1, pid for the CPU time), PGBENCH_IDLE (80; fewer when the server has fewer free connection slots;
# 0 skips the memory part), PGBENCH_TRACE (1: after the rounds, where the
# proxies' system calls and wake-ups go, per transaction: one simple-mode run
# per proxy under `perf stat` (system calls, context switches, wake-ups, CPU)
# and one under `strace -c -f` (the calls by name; strace slows the proxy, so
# its counts per transaction are the figure, not its TPS); needs perf and
# strace, and root or perf_event_paranoid <= 1), PGBENCH_PPROF (a directory: a 10 s CPU profile and
# an allocation profile of the Sidecar are taken there during its first
# round; SIDECAR_PPROF=1 on the admin address), SIDECAR_BIN (built from this checkout when unset). pgbouncer is
# installed by `make deps` (scripts/deps.d/benchpg.sh); without it its row is
# skipped. The script creates a scratch database and removes everything at
# the end.
set -euo pipefail
cd "$(dirname "$0")/.."

host=${PGBENCH_HOST:-127.0.0.1}
port=${PGBENCH_PORT:-5432}
user=${PGBENCH_USER:-postgres}
clients=${PGBENCH_CLIENTS:-8}
threads=${PGBENCH_THREADS:-2}
seconds=${PGBENCH_SECONDS:-10}
rounds=${PGBENCH_ROUNDS:-2}
scale=${PGBENCH_SCALE:-1}
modes=${PGBENCH_MODES:-simple prepared}
paths=${PGBENCH_PATHS:-direct pgbouncer relay sidecar sidecar+audit}
idle=${PGBENCH_IDLE:-80}
pprof_dir=${PGBENCH_PPROF:-}
trace=${PGBENCH_TRACE:-}
for c in pgbench psql go; do
  command -v "$c" >/dev/null || { echo "pgbench.sh: $c is not installed (make deps)" >&2; exit 1; }
done
pgbouncer_bin=$(command -v pgbouncer || { [ -x /usr/sbin/pgbouncer ] && echo /usr/sbin/pgbouncer; } || true)

work=$(mktemp -d)
chmod 755 "$work"
db="hoop_bench_$$"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  psql -X -q -h "$host" -p "$port" -U "$user" -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "building the sidecar, the relay and the idle-connection holder…" >&2
go build -o "$work/tcprelay" ./bench/tcprelay
go build -o "$work/pgidle" ./bench/pgidle
base=${PGBENCH_BASE:-}
if [ -n "$base" ]; then
  mkdir -p "$work/base"
  git archive "$base" | tar -x -C "$work/base"
  (cd "$work/base" && go build -o "$work/sidecar-base" ./cmd/sidecar)
  paths="$paths sidecar@$base"
fi
bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi

. bench/lib.sh # free_port, wait_port
wait_pg() { # port: waits up to 10 s until a login through it works
  for _ in $(seq 1 100); do
    psql -X -q -h 127.0.0.1 -p "$1" -U "$user" -d postgres -c 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
declare -A port_of pid_of

# The Sidecars: one without and one with an audit trail.
start_sidecar() { # name audit(yes|no) [binary] [GOMAXPROCS]
  local p admin b=${3:-$bin} procs=${4:-}
  p=$(free_port) admin=$(free_port)
  {
    echo "sidecar: bench"
    echo "log: {format: text, level: warn}"
    [ "$2" = yes ] && echo "audit: {file: $work/audit-$1.jsonl}"
    if [ -n "$pprof_dir" ] || [ "$1" = idle ]; then echo "admin: {listen: 127.0.0.1:$admin}"; fi
    cat <<YAML
approval_rules:
  - name: db-destructive
    match: {actions: [DROP, TRUNCATE, DELETE]}
listeners:
  - name: pg
    protocol: postgres
    listen: 127.0.0.1:$p
    upstream: $host:$port
    mode: return
    approval_rules: [db-destructive]
YAML
  } >"$work/$1.yaml"
  env ${procs:+GOMAXPROCS=$procs} SIDECAR_PPROF=$({ [ -n "$pprof_dir" ] || [ "$1" = idle ]; } && echo 1) "$b" run -config "$work/$1.yaml" >"$work/$1.log" 2>&1 &
  pids+=($!)
  pid_of[$1]=$!
  port_of[$1]=$p
  port_of[$1-admin]=$admin
  wait_pg "$p" || { echo "pgbench.sh: the $1 sidecar did not start; its log:" >&2; cat "$work/$1.log" >&2; exit 1; }
}
start_sidecar sidecar no
[[ " $paths " == *" sidecar+audit "* ]] && start_sidecar sidecar+audit yes
[ -n "$base" ] && start_sidecar "sidecar@$base" no "$work/sidecar-base"
[[ " $paths " == *" sidecar-1cpu "* ]] && start_sidecar sidecar-1cpu no "$bin" 1

start_relay() { # name mode: bench/tcprelay -mode mode, as path name
  "$work/tcprelay" -mode "$2" -listen 127.0.0.1:0 -upstream "$host:$port" >"$work/$1.addr" 2>"$work/$1.log" &
  pids+=($!)
  pid_of[$1]=$!
  for _ in $(seq 1 100); do [ -s "$work/$1.addr" ] && break; sleep 0.1; done
  port_of[$1]=$(sed -n '1s/.*://p' "$work/$1.addr")
}
start_relay relay copy
for mode in read wait blocking epoll; do
  if [[ " $paths " == *" relay-$mode "* ]]; then start_relay "relay-$mode" "$mode"; fi
done


if [ -n "$pgbouncer_bin" ]; then
  port_of[pgbouncer]=$(free_port)
  mkdir -p "$work/pgbouncer"
  chmod 777 "$work/pgbouncer" # pgbouncer may run as nobody (below) and writes its log there
  printf '"%s" ""\n' "$user" >"$work/pgbouncer/users"
  cat >"$work/pgbouncer/ini" <<INI
[databases]
* = host=$host port=$port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port_of[pgbouncer]}
unix_socket_dir =
auth_type = trust
auth_file = $work/pgbouncer/users
pool_mode = session
max_client_conn = 200
default_pool_size = 100
logfile = $work/pgbouncer/log
INI
  chmod 644 "$work/pgbouncer/ini" "$work/pgbouncer/users"
  as_user=()
  [ "$(id -u)" = 0 ] && as_user=(-u nobody) # pgbouncer refuses to run as root
  "$pgbouncer_bin" "${as_user[@]}" "$work/pgbouncer/ini" >/dev/null 2>&1 &
  pids+=($!)
  pid_of[pgbouncer]=$!
  wait_pg "${port_of[pgbouncer]}" || { echo "pgbench.sh: pgbouncer did not start; its log:" >&2; cat "$work/pgbouncer/log" >&2; exit 1; }
else
  echo "pgbench.sh: pgbouncer is not installed (make deps); its row is skipped" >&2
  paths=${paths/pgbouncer/}
fi
port_of[direct]=$port
# Proxies started by the caller, compared as more rows: name=port=pid each.
for x in ${PGBENCH_EXTRA:-}; do
  IFS== read -r name xport xpid <<<"$x"
  port_of[$name]=$xport
  pid_of[$name]=$xpid
  paths="$paths $name"
done

echo "preparing $db (pgbench -i -s $scale)…" >&2
psql -X -q -h "$host" -p "$port" -U "$user" -d postgres -c "CREATE DATABASE $db" >/dev/null
pgbench -i -q -s "$scale" -h "$host" -p "$port" -U "$user" "$db" >/dev/null 2>&1

hz=$(getconf CLK_TCK)
cpu_ticks() { # pid: user+system clock ticks of the process so far
  awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
# run path mode tag: one pgbench run; prints "tps avg_ms p99_ms
# cpu_us_per_txn machine_us_per_txn idle_pct": the proxy's CPU, and the
# whole machine's busy CPU per transaction (pgbench, PostgreSQL, the proxy
# and the kernel) with the share of CPU time left idle.
run() {
  local h=127.0.0.1 out pid=${pid_of[$1]:-} c0=0 c1=0 m0 m1
  [ "$1" = direct ] && h=$host
  [ -n "$pid" ] && c0=$(cpu_ticks "$pid")
  m0=$(machine_ticks)
  out=$(pgbench -S -n -M "$2" -c "$clients" -j "$threads" -T "$seconds" -l --log-prefix="$work/lat-$3" \
    -h "$h" -p "${port_of[$1]}" -U "$user" "$db" 2>&1) || { echo "pgbench.sh: pgbench through $1 failed:" >&2; echo "$out" >&2; return 1; }
  [ -n "$pid" ] && c1=$(cpu_ticks "$pid")
  m1=$(machine_ticks)
  local tps avg p99 txns cpu=- mach idle
  tps=$(awk '/^tps = / {printf "%.0f", $3; exit}' <<<"$out")
  txns=$(awk '/^number of transactions actually processed: / {print $6; exit}' <<<"$out")
  [ -n "$pid" ] && cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v n="$txns" 'BEGIN { printf "%.1f", (b - a) / hz * 1e6 / n }')
  read -r mach idle < <(machine_use "$m0" "$m1" "$txns")
  avg=$(awk '/^latency average = / {print $4; exit}' <<<"$out")
  # Per-transaction log: the third field is the latency in µs.
  p99=$(cat "$work/lat-$3".* | awk '{print $3}' | sort -n | awk '{v[NR]=$1} END {i=int(NR*0.99); if (i<1) i=1; printf "%.3f", v[i]/1000}')
  rm -f "$work/lat-$3".*
  echo "$tps $avg $p99 $cpu $mach $idle"
}

profile() { # takes the Sidecar's profiles while its round runs
  local a=127.0.0.1:${port_of[sidecar-admin]}
  mkdir -p "$pprof_dir"
  sleep 1
  curl -sf "http://$a/debug/pprof/profile?seconds=$((seconds > 3 ? seconds - 2 : 1))" -o "$pprof_dir/cpu-$1.pprof" || echo "pgbench.sh: no CPU profile (admin pprof off?)" >&2
  curl -sf "http://$a/debug/pprof/allocs" -o "$pprof_dir/allocs-$1.pprof" || true
}

declare -A results
printf '\npgbench -S -c %s -j %s -T %s, scale %s; %s round(s), paths interleaved\n' "$clients" "$threads" "$seconds" "$scale" "$rounds"
printf '%-5s %-9s %-20s %9s %9s %9s %10s %11s %6s   %s\n' round mode path TPS "avg ms" "p99 ms" "cpu µs/tx" "machine µs" "idle%" "load avg"
read -r -a path_list <<<"$paths"
for r in $(seq 1 "$rounds"); do
  for mode in $modes; do
    # Rotate the order each round so no path always runs first.
    n=${#path_list[@]}
    for i in $(seq 0 $((n - 1))); do
      p=${path_list[$(((i + r - 1) % n))]}
      prof_pid=""
      if [ -n "$pprof_dir" ] && [ "$p" = sidecar ] && [ "$r" = 1 ]; then
        profile "$mode" &
        prof_pid=$!
      fi
      res=$(run "$p" "$mode" "$r-$mode-$i")
      [ -n "$prof_pid" ] && wait "$prof_pid"
      results[$p,$mode]="${results[$p,$mode]:-} $res"
      read -r tps avg p99 cpu mach idle <<<"$res"
      printf '%-5s %-9s %-20s %9s %9s %9s %10s %11s %6s   %s\n' "$r" "$mode" "$p" "$tps" "$avg" "$p99" "$cpu" "$mach" "$idle" "$(cut -d' ' -f1-3 /proc/loadavg)"
    done
  done
done

# Summary: the median over rounds of each path's TPS and p99, and the ratios.
median() { tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk '{v[NR]=$1} END {if (NR) print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
col() { # path mode field(1 tps, 2 avg, 3 p99, 4 cpu µs per transaction, 5 machine µs, 6 idle %)
  tr ' ' '\n' <<<"${results[$1,$2]:-}" | { grep -v '^$' || true; } | awk -v f="$3" 'NR % 6 == (f % 6)' | { grep -v '^-$' || true; } | tr '\n' ' ' | median
}
printf '\nmedian of %s round(s)\n' "$rounds"
printf '%-9s %-20s %9s %9s %9s %10s %11s %6s %10s %10s %10s\n' mode path TPS "avg ms" "p99 ms" "cpu µs/tx" "machine µs" "idle%" "/direct" "/pgbouncer" "/relay"
for mode in $modes; do
  d=$(col direct "$mode" 1)
  b=$(col pgbouncer "$mode" 1)
  rl=$(col relay "$mode" 1)
  for p in "${path_list[@]}"; do
    t=$(col "$p" "$mode" 1)
    awk -v m="$mode" -v p="$p" -v t="$t" -v a="$(col "$p" "$mode" 2)" -v q="$(col "$p" "$mode" 3)" -v c="$(col "$p" "$mode" 4)" \
      -v mc="$(col "$p" "$mode" 5)" -v id="$(col "$p" "$mode" 6)" -v d="$d" -v b="$b" -v r="$rl" '
      function ratio(x) { return (x > 0) ? sprintf("%.2f×", t / x) : "-" }
      BEGIN { printf "%-9s %-20s %9.0f %9.3f %9.3f %10s %11s %6s %10s %10s %10s\n", m, p, t, a, q, (c == "") ? "-" : c, mc, id, ratio(d), ratio(b), ratio(r) }'
  done
done

# Where the system calls go (PGBENCH_TRACE=1): per transaction, for each
# proxy, from perf stat (counters in the kernel: little overhead) and from
# strace -c -f (every call by name).
if [ "$trace" = 1 ]; then
  for c in perf strace; do
    command -v "$c" >/dev/null || { echo "pgbench.sh: PGBENCH_TRACE needs $c (apt-get install linux-perf strace)" >&2; exit 1; }
  done
  # pgbench_txns path: one simple-mode run; prints its transactions.
  pgbench_txns() {
    pgbench -S -n -M simple -c "$clients" -j "$threads" -T "$seconds" -h 127.0.0.1 -p "${port_of[$1]}" -U "$user" "$db" 2>&1 |
      awk '/^number of transactions actually processed: / {print $6; exit}'
  }
  printf '\nper transaction, simple mode, %s s each (perf stat, then strace -c -f in a run of its own)\n' "$seconds"
  printf '%-20s %9s %9s %9s %9s %9s %9s   %s\n' path "syscalls" "ctx sw" "wake-ups" "cpu µs" "migr" TPS "strace -c: calls per transaction"
  for p in "${path_list[@]}"; do
    pid=${pid_of[$p]:-}
    [ -n "$pid" ] || continue
    perf stat -x, -e raw_syscalls:sys_enter,context-switches,sched:sched_wakeup,task-clock,cpu-migrations -p "$pid" -o "$work/perf-$p" &
    perf_pid=$!
    sleep 0.5
    t0=$(date +%s.%N)
    txns=$(pgbench_txns "$p")
    t1=$(date +%s.%N)
    kill -INT "$perf_pid"; wait "$perf_pid" || true
    strace -c -f -q -p "$pid" -o "$work/strace-$p" &
    strace_pid=$!
    sleep 0.5
    stxns=$(pgbench_txns "$p")
    kill -INT "$strace_pid"; wait "$strace_pid" || true
    calls=$(awk -v n="$stxns" '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" {
        printf "%s %.2f\n", $NF, $4 / n }' "$work/strace-$p" | sort -k2 -gr | head -6 | awk '{printf "%s %s, ", $1, $2}')
    awk -F, -v p="$p" -v n="$txns" -v tps="$(awk -v n="$txns" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", n/(b-a)}')" -v calls="${calls%, }" '
      $3 == "raw_syscalls:sys_enter" { sc = $1 } $3 == "context-switches" { cs = $1 } $3 == "sched:sched_wakeup" { wk = $1 }
      $3 == "task-clock" { cpu = $1 * 1000 } $3 == "cpu-migrations" { mg = $1 }
      END { printf "%-20s %9.2f %9.2f %9.2f %9.1f %9.3f %9s   %s\n", p, sc / n, cs / n, wk / n, cpu / n, mg / n, tps, calls }' "$work/perf-$p"
  done
fi

# Memory: RSS growth per idle proxied connection (each proxy first serves a
# few connections, so that what it sets up once is not counted; the
# Sidecar also collects its garbage before each reading, through the
# admin address's /debug/pprof/heap?gc=1).
if [ "$idle" -gt 0 ]; then
  free=$(psql -X -At -h "$host" -p "$port" -U "$user" -d postgres -c \
    "SELECT current_setting('max_connections')::int - count(*) FROM pg_stat_activity")
  n=$((idle < free - 10 ? idle : free - 10))
  if [ "$n" -lt 10 ]; then
    echo "pgbench.sh: only $free free connection slots on the server; the memory part is skipped" >&2
  else
    [ "$n" -lt "$idle" ] && echo "pgbench.sh: the server has $free free connection slots: $n idle connections instead of $idle" >&2
    rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; } # KiB
    # go_kib: the idle Sidecar's Go heap and stacks in use right after a
    # collection (KiB): what it keeps, without the garbage that RSS also
    # holds until the next collection (the logins' garbage swings RSS).
    go_kib() {
      local a=127.0.0.1:${port_of[idle-admin]}
      curl -sf "http://$a/debug/pprof/heap?gc=1" -o /dev/null || return 0
      curl -sf "http://$a/metrics" | awk '/^go_memstats_(heap|stack)_inuse_bytes / { s += $2 } END { if (s) printf "%d", s / 1024 }'
    }
    printf '\nidle connections: RSS growth of the proxy with %s idle logged-in connections\n' "$n"
    printf '%-14s %12s %12s %14s %22s\n' path "before KiB" "after KiB" "KiB per conn" "Go heap+stacks per conn"
    # A fresh Sidecar, so that the garbage of the runs above (returned to the
    # system at its own pace) does not blur the growth.
    start_sidecar idle no
    for p in pgbouncer relay idle; do
      [ -n "${pid_of[$p]:-}" ] || continue
      # One connection and statement first, so that what a proxy sets up
      # once (pools, the analyzer's tables) is not counted per connection.
      for _ in 1 2 3; do psql -X -q -h 127.0.0.1 -p "${port_of[$p]}" -U "$user" -d "$db" -c 'SELECT 1' >/dev/null 2>&1; done
      sleep 1
      g0="" g1=""
      [ "$p" = idle ] && g0=$(go_kib)
      before=$(rss "${pid_of[$p]}")
      mkfifo "$work/hold"
      "$work/pgidle" -n "$n" -dsn "postgres://$user@127.0.0.1:${port_of[$p]}/$db?sslmode=disable" <"$work/hold" >"$work/idle.out" 2>&1 &
      idle_pid=$!
      exec 7>"$work/hold"
      for _ in $(seq 1 300); do grep -q '^open' "$work/idle.out" 2>/dev/null && break; sleep 0.1; done
      sleep 1
      after=$(rss "${pid_of[$p]}")
      [ "$p" = idle ] && g1=$(go_kib)
      exec 7>&-
      wait "$idle_pid" || { echo "pgbench.sh: idle connections through $p failed:" >&2; cat "$work/idle.out" >&2; }
      rm -f "$work/hold"
      awk -v p="${p/idle/sidecar}" -v b="$before" -v a="$after" -v n="$n" -v g0="$g0" -v g1="$g1" 'BEGIN {
        printf "%-14s %12d %12d %14.1f %22s\n", p, b, a, (a - b) / n, (g0 != "" && g1 != "") ? sprintf("%.1f", (g1 - g0) / n) : "-" }'
    done
  fi
fi
for p in sidecar sidecar+audit; do
  if [ -f "$work/$p.log" ] && grep -q 'level=ERROR' "$work/$p.log"; then
    echo "$p errors:" >&2; grep 'level=ERROR' "$work/$p.log" | head -5 >&2
  fi
done
