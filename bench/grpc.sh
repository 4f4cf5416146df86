#!/usr/bin/env bash
# Unary gRPC calls per second and latency percentiles through three paths in
# one run, rounds interleaved, printed as a table with the ratios:
#
#   direct    the upstream itself (bench/grpcload -serve: the Probe service)
#   relay     bench/tcprelay: a bare Go TCP relay, goroutine per direction
#             (the Go ceiling: no parsing, no decisions)
#   sidecar   the Sidecar's grpc listener, no Control Plane, return mode, a
#             rule that holds /hoop.probe.v1.Probe/Upload (Unary needs no
#             approval, but every call goes through the gate)
#   base      (SIDECAR_BASE_BIN set) an older build with the same config, for
#             before/after in one run
#
# There is no reference gRPC proxy on this machine kind; the goal is the
# Sidecar at ≥ 0.8× direct. Each row has the proxy's CPU per call (µs,
# user+system from /proc/<pid>/stat), which a shared machine blurs less than
# calls/s, and the whole machine's busy CPU per call with the share of CPU
# time left idle (/proc/stat): with no idle CPU, calls/s is the machine's
# CPU divided by that figure. A comparison, not a test: the machine is shared,
# so only rows of the same run compare; the load average is printed.
#
#   bench/grpc.sh
#   GRPC_CALLS=32 GRPC_SECONDS=20 GRPC_ROUNDS=3 bench/grpc.sh
#   SIDECAR_BASE_BIN=/tmp/sidecar-main bench/grpc.sh   # a fourth row: another build
#
# Environment: GRPC_CALLS (16 calls in flight), GRPC_CONNS (1 client
# connection; gRPC multiplexes the calls on it), GRPC_SECONDS (10),
# GRPC_WARMUP (1s), GRPC_ROUNDS (2), GRPC_PPROF (a directory: a CPU and an
# allocation profile of the Sidecar are taken there during its first round),
# SIDECAR_BIN (built from this checkout when unset), SIDECAR_BASE_BIN
# (optional fourth row: an older build, e.g. of main). Nothing is installed;
# everything is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

calls=${GRPC_CALLS:-16}
conns=${GRPC_CONNS:-1}
seconds=${GRPC_SECONDS:-10}
warmup=${GRPC_WARMUP:-1s}
rounds=${GRPC_ROUNDS:-2}
pprof_dir=${GRPC_PPROF:-}
command -v go >/dev/null || { echo "grpc.sh: go is not installed" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building the load generator, the relay and the sidecar…" >&2
go build -o "$work/grpcload" ./bench/grpcload
go build -o "$work/tcprelay" ./bench/tcprelay
bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi

. bench/lib.sh # free_port, wait_port, ticks
first_line() { # file: waits up to 10 s for its first line
  for _ in $(seq 1 100); do [ -s "$1" ] && break; sleep 0.1; done
  head -n1 "$1"
}

"$work/grpcload" -serve 127.0.0.1:0 >"$work/upstream.addr" 2>"$work/upstream.log" &
pids+=($!)
upstream=$(first_line "$work/upstream.addr")
[ -n "$upstream" ] || { echo "grpc.sh: the upstream did not start:" >&2; cat "$work/upstream.log" >&2; exit 1; }

"$work/tcprelay" -listen 127.0.0.1:0 -upstream "$upstream" >"$work/relay.addr" 2>"$work/relay.log" &
pids+=($!)
relay_pid=$!
relay=$(first_line "$work/relay.addr")

listen_port=$(free_port)
admin_port=$(free_port)
write_config() { # file listen_port admin: the Sidecar's config, with an admin address when admin is 1
  local port=$2 admin=$3
  {
    echo "sidecar: bench"
    echo "log: {format: text, level: warn}"
    if [ "$admin" = 1 ] && [ -n "$pprof_dir" ]; then echo "admin: {listen: 127.0.0.1:$admin_port}"; fi
    cat <<YAML
approval_rules:
  - name: uploads
    match: {targets: [/hoop.probe.v1.Probe/Upload]}
listeners:
  - name: rpc
    protocol: grpc
    listen: 127.0.0.1:$port
    upstream: $upstream
    mode: return
    approval_rules: [uploads]
YAML
  } >"$1"
}
start_sidecar() { # binary port name admin
  write_config "$work/$3.yaml" "$2" "$4"
  SIDECAR_PPROF=$([ "$4" = 1 ] && [ -n "$pprof_dir" ] && echo 1) "$1" run -config "$work/$3.yaml" >"$work/$3.log" 2>&1 &
  pids+=($!)
  started=$!
  wait_port "$2" || { echo "grpc.sh: the $3 sidecar did not start; its log:" >&2; cat "$work/$3.log" >&2; exit 1; }
}
start_sidecar "$bin" "$listen_port" sidecar 1
declare -A pid_of=([direct]="" [relay]=$relay_pid [sidecar]=$started)

declare -A addr_of=([direct]=$upstream [relay]=$relay [sidecar]=127.0.0.1:$listen_port)
paths=(direct relay sidecar)
if [ -n "${SIDECAR_BASE_BIN:-}" ]; then
  base_port=$(free_port)
  start_sidecar "$SIDECAR_BASE_BIN" "$base_port" base 0
  addr_of[base]=127.0.0.1:$base_port
  pid_of[base]=$started
  paths+=(base)
fi
npaths=${#paths[@]}
load() { # address
  "$work/grpcload" -target "$1" -c "$calls" -conns "$conns" -d "${seconds}s" -warmup "$warmup"
}
field() { # line key
  tr ' ' '\n' <<<"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'
}
profile() {
  mkdir -p "$pprof_dir"
  sleep 2
  curl -sf "http://127.0.0.1:$admin_port/debug/pprof/profile?seconds=$((seconds > 3 ? seconds - 2 : 1))" -o "$pprof_dir/cpu-grpc.pprof" || echo "grpc.sh: no CPU profile" >&2
  curl -sf "http://127.0.0.1:$admin_port/debug/pprof/allocs" -o "$pprof_dir/allocs-grpc.pprof" || true
}

with_warmup() { # calls: the calls of a load run, its warm-up's (not counted by grpcload) added at the measured rate
  awk -v n="$1" -v s="$seconds" -v w="$warmup" 'BEGIN { w = (w ~ /ms$/) ? w / 1000 : w + 0; printf "%.0f", n * (s + w) / s }'
}
cpu_per_call() { # pid ticks_before ticks_after calls: the proxy's CPU µs per call, "-" without a proxy pid
  [ -n "$1" ] || { echo -; return; }
  awk -v a="$2" -v b="$3" -v n="$4" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { if (a < 0 || b < 0 || n == 0) print "-"; else printf "%.1f", 1e6 * (b - a) / hz / n }'
}

declare -A rps p99s cpus machs idles
printf '\nunary calls, %s in flight on %s connection(s), %s s per path, %s round(s), interleaved\n' "$calls" "$conns" "$seconds" "$rounds"
printf '(cpu µs: the proxy process'"'"'s user+system CPU per call, /proc/<pid>/stat; machine µs: the busy CPU of the\n'
printf 'whole machine per call, load generator, server, proxy and kernel, /proc/stat; idle%%: the CPU time left idle)\n'
printf '%-5s %-9s %10s %8s %8s %8s %8s %7s %7s %8s %5s   %s\n' round path "calls/s" "p50 µs" "p90 µs" "p99 µs" "max µs" errors "cpu µs" "machine" "idle%" "load avg"
for r in $(seq 1 "$rounds"); do
  for i in $(seq 0 $((npaths - 1))); do
    p=${paths[$(((i + r - 1) % npaths))]}
    prof_pid=""
    if [ -n "$pprof_dir" ] && [ "$p" = sidecar ] && [ "$r" = 1 ]; then
      profile &
      prof_pid=$!
    fi
    t0=$(ticks "${pid_of[$p]}")
    m0=$(machine_ticks)
    line=$(load "${addr_of[$p]}")
    m1=$(machine_ticks)
    t1=$(ticks "${pid_of[$p]}")
    [ -n "$prof_pid" ] && wait "$prof_pid"
    counted=$(with_warmup "$(field "$line" calls)")
    cpu=$(cpu_per_call "${pid_of[$p]}" "$t0" "$t1" "$counted")
    rps[$p]="${rps[$p]:-} $(field "$line" rps)"
    p99s[$p]="${p99s[$p]:-} $(field "$line" p99)"
    [ "$cpu" = - ] || cpus[$p]="${cpus[$p]:-} $cpu"
    read -r mach idle < <(machine_use "$m0" "$m1" "$counted")
    [ "$mach" = - ] || { machs[$p]="${machs[$p]:-} $mach"; idles[$p]="${idles[$p]:-} $idle"; }
    printf '%-5s %-9s %10s %8s %8s %8s %8s %7s %7s %8s %5s   %s\n' "$r" "$p" "$(field "$line" rps)" "$(field "$line" p50)" \
      "$(field "$line" p90)" "$(field "$line" p99)" "$(field "$line" max)" "$(field "$line" errors)" "$cpu" "$mach" "$idle" "$(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf '\nmedian of %s round(s)\n' "$rounds"
printf '%-9s %10s %8s %9s %9s %7s %8s %5s\n' path "calls/s" "p99 µs" "/direct" "/relay" "cpu µs" "machine" "idle%"
d=$(median <<<"${rps[direct]}")
rl=$(median <<<"${rps[relay]}")
for p in "${paths[@]}"; do
  c=-
  [ -z "${cpus[$p]:-}" ] || c=$(median <<<"${cpus[$p]}")
  m=- i=-
  [ -z "${machs[$p]:-}" ] || { m=$(median <<<"${machs[$p]}"); i=$(median <<<"${idles[$p]}"); }
  awk -v p="$p" -v t="$(median <<<"${rps[$p]}")" -v q="$(median <<<"${p99s[$p]}")" -v d="$d" -v r="$rl" -v c="$c" -v m="$m" -v i="$i" \
    'BEGIN { printf "%-9s %10.0f %8.0f %8.2f× %8.2f× %7s %8s %5s\n", p, t, q, t / d, t / r, c, m, i }'
done
if grep -q 'level=ERROR' "$work/sidecar.log"; then
  echo "sidecar errors:" >&2; grep 'level=ERROR' "$work/sidecar.log" | head -5 >&2
fi
