#!/usr/bin/env bash
# Requests/s and latency percentiles of keep-alive GETs directly against a
# small HTTP upstream and through a Sidecar http listener, in one run,
# printed as a table. A comparison, not a test.
#
#   bench/http.sh                              # 16 connections, 10 s each way
#   HTTP_CONNS=32 HTTP_SECONDS=20 HTTP_ROUNDS=3 bench/http.sh
#
# Environment: HTTP_CONNS (16), HTTP_SECONDS (10), HTTP_WARMUP (1s),
# HTTP_ROUNDS (1: each round measures direct, then the Sidecar),
# HTTP_PATH (/v1/items?limit=10), SIDECAR_BIN (built from this checkout when
# unset). The upstream (bench/httpupstream) answers every request with 200
# and a short JSON body; the load generator (bench/httpload) keeps one request
# in flight per connection. The Sidecar runs without a Control Plane: GETs
# need no approval (the listener's rule holds DELETE, PUT and PATCH), but
# every request still goes through the analyzer and the gate. Nothing is
# installed; everything is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

conns=${HTTP_CONNS:-16}
seconds=${HTTP_SECONDS:-10}
warmup=${HTTP_WARMUP:-1s}
rounds=${HTTP_ROUNDS:-1}
path=${HTTP_PATH:-/v1/items?limit=10}
command -v go >/dev/null || { echo "http.sh: go is not installed" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building the load generator, the upstream and the sidecar…" >&2
go build -o "$work/httpload" ./bench/httpload
go build -o "$work/httpupstream" ./bench/httpupstream
bin=${SIDECAR_BIN:-}
if [ -z "$bin" ]; then
  go build -o "$work/sidecar" ./cmd/sidecar
  bin="$work/sidecar"
fi

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}
wait_port() { # port: waits up to 10 s until something accepts on it
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

"$work/httpupstream" -listen 127.0.0.1:0 >"$work/upstream.addr" 2>"$work/upstream.log" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/upstream.addr" ] && break; sleep 0.1; done
upstream=$(head -n1 "$work/upstream.addr")
[ -n "$upstream" ] || { echo "http.sh: the upstream did not start:" >&2; cat "$work/upstream.log" >&2; exit 1; }

listen_port=$(free_port)
cat >"$work/config.yaml" <<YAML
sidecar: bench
log: {format: text, level: info}
approval_rules:
  - name: http-writes
    match: {actions: [DELETE, PUT, PATCH]}
listeners:
  - name: api
    protocol: http
    listen: 127.0.0.1:$listen_port
    upstream: http://$upstream
    mode: return
    approval_rules: [http-writes]
YAML
"$bin" run -config "$work/config.yaml" >"$work/sidecar.log" 2>&1 &
pids+=($!)
wait_port "$listen_port" || { echo "http.sh: the sidecar did not start; its log:" >&2; cat "$work/sidecar.log" >&2; exit 1; }

load() { # base URL; prints the httpload result line
  "$work/httpload" -url "$1$path" -c "$conns" -d "${seconds}s" -warmup "$warmup"
}
field() { # line key
  tr ' ' '\n' <<<"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'
}

printf '\nGET %s, %s keep-alive connections, %s s per path, same run\n' "$path" "$conns" "$seconds"
printf '%-5s %-22s %10s %8s %8s %8s %8s %8s\n' round path "req/s" "p50 µs" "p90 µs" "p99 µs" "max µs" errors
for r in $(seq 1 "$rounds"); do
  direct=$(load "http://$upstream")
  through=$(load "http://127.0.0.1:$listen_port")
  for row in "direct|$direct" "through the Sidecar|$through"; do
    name=${row%%|*} line=${row#*|}
    printf '%-5s %-22s %10s %8s %8s %8s %8s %8s\n' "$r" "$name" "$(field "$line" rps)" "$(field "$line" p50)" \
      "$(field "$line" p90)" "$(field "$line" p99)" "$(field "$line" max)" "$(field "$line" errors)"
  done
  awk -v d="$(field "$direct" rps)" -v s="$(field "$through" rps)" -v dp="$(field "$direct" p50)" -v sp="$(field "$through" p50)" \
    'BEGIN { printf "%-5s %-22s %9.0f%% %+7d µs added at p50\n", "", "Sidecar / direct", 100 * s / d, sp - dp }'
done
if grep -q 'level=ERROR' "$work/sidecar.log"; then
  echo "sidecar errors:" >&2; grep 'level=ERROR' "$work/sidecar.log" | head -5 >&2
fi
