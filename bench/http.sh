#!/usr/bin/env bash
# Requests/s and latency percentiles of keep-alive GETs of a 57-byte JSON
# body from a small HTTP upstream (bench/httpupstream), in one run with
# interleaved rounds, along four paths, with each proxy's own CPU time per
# request (user+system from /proc/<pid>/stat, less blurred by a shared
# machine's load than requests/s):
#
#   direct       wrk -> upstream
#   nginx        wrk -> nginx (1 worker, upstream keepalive 256) -> upstream
#   Go relay     wrk -> bare Go TCP relay (bench/tcprelay) -> upstream: the Go ceiling
#   Sidecar      wrk -> Sidecar http listener -> upstream
#
# and prints the Sidecar's ratios against nginx and the Go relay. A
# comparison, not a test. nginx-light and wrk come from `make deps`
# (scripts/deps.d/benchhttp.sh).
#
#   bench/http.sh                          # wrk -t2 -c64, 10 s per path, 3 rounds
#   HTTP_CONNS=2000 bench/http.sh          # 2,000 concurrent connections
#   HTTP_IDLE=2000 bench/http.sh           # RSS per idle proxied keep-alive connection
#   SIDECAR_BASE_BIN=/tmp/sidecar-main bench/http.sh   # a fifth row: another build
#
# Environment: HTTP_CONNS (64), HTTP_THREADS (2), HTTP_SECONDS (10),
# HTTP_ROUNDS (3), HTTP_PATH (/v1/items?limit=10), HTTP_IDLE (0: off; N: open
# N idle keep-alive connections through nginx and the Sidecar and report
# VmRSS before and after, /proc/<pid>/status), SIDECAR_BIN (built from this
# checkout when unset), SIDECAR_BASE_BIN (optional second Sidecar row, e.g.
# a build of main, for before/after in one run). The Sidecar runs without a
# Control Plane in return mode: GETs need no approval (the rule holds DELETE),
# but every request still goes through the analyzer and the gate.
# SIDECAR_PPROF=1 is passed through: with it the Sidecar serves /debug/pprof/
# on an admin address printed at the start.
set -euo pipefail
cd "$(dirname "$0")/.."

conns=${HTTP_CONNS:-64}
threads=${HTTP_THREADS:-2}
seconds=${HTTP_SECONDS:-10}
rounds=${HTTP_ROUNDS:-3}
path=${HTTP_PATH:-/v1/items?limit=10}
idle=${HTTP_IDLE:-0}
for t in go wrk nginx; do
  command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] ||
    { echo "http.sh: $t is not installed (make deps installs nginx-light and wrk)" >&2; exit 1; }
done
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building the load generator, the upstream, the relay and the sidecar…" >&2
go build -o "$work/httpload" ./bench/httpload
go build -o "$work/httpupstream" ./bench/httpupstream
go build -o "$work/tcprelay" ./bench/tcprelay
bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi
base_bin=${SIDECAR_BASE_BIN:-}

. bench/lib.sh # free_port, wait_port
addr_of() { # file: waits for the first line a program prints (its address)
  for _ in $(seq 1 100); do [ -s "$1" ] && break; sleep 0.1; done
  head -n1 "$1"
}

"$work/httpupstream" -listen 127.0.0.1:0 >"$work/upstream.addr" 2>"$work/upstream.log" &
pids+=($!)
upstream=$(addr_of "$work/upstream.addr")
[ -n "$upstream" ] || { echo "http.sh: the upstream did not start:" >&2; cat "$work/upstream.log" >&2; exit 1; }

"$work/tcprelay" -listen 127.0.0.1:0 -upstream "$upstream" >"$work/relay.addr" 2>"$work/relay.log" &
relay_pid=$!
pids+=($relay_pid)
relay=$(addr_of "$work/relay.addr")

nginx_port=$(free_port)
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  keepalive_requests 1000000;
  upstream api { server $upstream; keepalive 256; }
  server {
    listen 127.0.0.1:$nginx_port;
    location / {
      proxy_pass http://api;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
NGINX
"$nginx_bin" -p "$work/nginx" -c "$work/nginx/nginx.conf" 2>"$work/nginx/stderr" &
nginx_pid=$!
pids+=($nginx_pid)
wait_port "$nginx_port" || { echo "http.sh: nginx did not start:" >&2; cat "$work/nginx/stderr" "$work/nginx/error.log" >&2; exit 1; }

start_sidecar() { # name binary: starts a Sidecar, prints its port; its pid goes to $work/<name>.pid
  local port admin
  port=$(free_port) admin=$(free_port)
  cat >"$work/$1.yaml" <<YAML
sidecar: bench
log: {format: text, level: warn}
admin: {listen: 127.0.0.1:$admin}
approval_rules:
  - name: http-deletes
    match: {actions: [DELETE]}
listeners:
  - name: api
    protocol: http
    listen: 127.0.0.1:$port
    upstream: http://$upstream
    mode: return
    approval_rules: [http-deletes]
YAML
  "$2" run -config "$work/$1.yaml" >"$work/$1.log" 2>&1 &
  echo $! >"$work/$1.pid"
  wait_port "$port" || { echo "http.sh: the sidecar ($1) did not start; its log:" >&2; cat "$work/$1.log" >&2; exit 1; }
  [ "${SIDECAR_PPROF:-}" = 1 ] && echo "$1: pprof at http://127.0.0.1:$admin/debug/pprof/" >&2
  echo "$port"
}
sidecar_port=$(start_sidecar sidecar "$bin")
pids+=("$(cat "$work/sidecar.pid")")
names=("direct" "nginx" "Go relay" "Sidecar")
urls=("http://$upstream" "http://127.0.0.1:$nginx_port" "http://$relay" "http://127.0.0.1:$sidecar_port")
rsspids=("" "$nginx_pid" "" "$(cat "$work/sidecar.pid")")
cpupids=("" "$nginx_pid" "$relay_pid" "$(cat "$work/sidecar.pid")")
if [ -n "$base_bin" ]; then
  base_port=$(start_sidecar base "$base_bin")
  pids+=("$(cat "$work/base.pid")")
  names+=("Sidecar (base)")
  urls+=("http://127.0.0.1:$base_port")
  rsspids+=("$(cat "$work/base.pid")")
  cpupids+=("$(cat "$work/base.pid")")
fi

rss_kib() { # pid: VmRSS of the process and its children (nginx's worker), KiB
  local sum=0 p
  for p in "$1" $(pgrep -P "$1" || true); do
    sum=$((sum + $(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status")))
  done
  echo "$sum"
}

if [ "$idle" -gt 0 ]; then
  printf '\n%s idle keep-alive connections (one GET each, then idle); VmRSS from /proc/<pid>/status\n' "$idle"
  printf '%-16s %12s %12s %14s\n' path "before KiB" "after KiB" "KiB per conn"
  for i in "${!names[@]}"; do
    pid=${rsspids[$i]}
    [ -n "$pid" ] || continue
    # one warm-up request so that lazily built state is not counted per connection
    "$work/httpload" -url "${urls[$i]}$path" -c 1 -d 1s -warmup 0s >/dev/null
    before=$(rss_kib "$pid")
    mkfifo "$work/hold.$i"
    "$work/httpload" -idle -url "${urls[$i]}$path" -c "$idle" <"$work/hold.$i" >"$work/idle.$i" &
    holder=$!
    exec 7>"$work/hold.$i"
    for _ in $(seq 1 600); do [ -s "$work/idle.$i" ] && break; sleep 0.1; done
    sleep 1
    after=$(rss_kib "$pid")
    exec 7>&-
    wait "$holder" || true
    printf '%-16s %12s %12s %14.1f   (%s)\n' "${names[$i]}" "$before" "$after" \
      "$(awk -v a="$after" -v b="$before" -v n="$idle" 'BEGIN { print (a - b) / n }')" "$(cat "$work/idle.$i")"
  done
  exit 0
fi

cpu_ticks() { # pid: user+system clock ticks of the process and its children (nginx's worker); 0 without a pid
  local sum=0 p
  [ -n "$1" ] || { echo 0; return; }
  for p in "$1" $(pgrep -P "$1" || true); do
    sum=$((sum + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$sum"
}
hz=$(getconf CLK_TCK)

# wrk's summary in one line: rps p50 p99 (µs) errors requests
load() {
  wrk -t"$threads" -c"$conns" -d"${seconds}s" --latency "$1$path" 2>&1 | awk '
    function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
    $1 == "50%" { p50 = us($2) } $1 == "99%" { p99 = us($2) }
    $1 == "Requests/sec:" { rps = $2 }
    $2 == "requests" && $3 == "in" { n = $1 }
    /Non-2xx/ { err += $NF } /Socket errors/ { gsub(",", ""); err += $4 + $6 + $8 + $10 }
    END { printf "%.0f %.0f %.0f %d %d\n", rps, p50, p99, err, n }'
}

printf '\nGET %s (57-byte JSON), wrk -t%s -c%s, %s s per path, %s interleaved rounds; load average %s\n' \
  "$path" "$threads" "$conns" "$seconds" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-16s %10s %10s %10s %8s %10s\n' round path "req/s" "p50 µs" "p99 µs" errors "cpu µs/req"
declare -A sum
for r in $(seq 1 "$rounds"); do
  for i in "${!names[@]}"; do
    c0=$(cpu_ticks "${cpupids[$i]}")
    read -r rps p50 p99 err n <<<"$(load "${urls[$i]}")"
    c1=$(cpu_ticks "${cpupids[$i]}")
    cpu=-
    if [ -n "${cpupids[$i]}" ] && [ "$n" -gt 0 ]; then
      cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v n="$n" 'BEGIN { printf "%.1f", (b - a) / hz * 1e6 / n }')
      sum[$i.cpu]=$(awk -v s="${sum[$i.cpu]:-0}" -v c="$cpu" 'BEGIN { print s + c }')
    fi
    printf '%-5s %-16s %10s %10s %10s %8s %10s\n' "$r" "${names[$i]}" "$rps" "$p50" "$p99" "$err" "$cpu"
    sum[$i.rps]=$(( ${sum[$i.rps]:-0} + rps ))
    sum[$i.p99]=$(( ${sum[$i.p99]:-0} + p99 ))
  done
done
printf '\nmean of %s rounds; load average %s (cpu: the proxy process'"'"'s user+system CPU per request, /proc/<pid>/stat)\n' \
  "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %10s %10s %10s %10s %10s\n' path "req/s" "p99 µs" "cpu µs/req" "÷ nginx" "÷ relay"
for i in "${!names[@]}"; do
  awk -v n="${names[$i]}" -v r="${sum[$i.rps]}" -v p="${sum[$i.p99]}" -v c="${sum[$i.cpu]:-}" -v k="$rounds" \
    -v ng="${sum[1.rps]}" -v re="${sum[2.rps]}" \
    'BEGIN { printf "%-16s %10.0f %10.0f %10s %9.2f× %9.2f×\n", n, r / k, p / k, c == "" ? "-" : sprintf("%.1f", c / k), r / ng, r / re }'
done
for f in "$work"/sidecar.log "$work"/base.log; do
  [ -f "$f" ] && grep -q 'level=ERROR' "$f" && { echo "sidecar errors ($f):" >&2; grep 'level=ERROR' "$f" | head -5 >&2; }
done
exit 0
