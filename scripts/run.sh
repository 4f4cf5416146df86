#!/usr/bin/env bash
# make run: brings up the reference Control Plane (embedded SQLite store), an
# example upstream, and a Sidecar from examples/config.yaml, then prints what
# to try next. Ctrl-C stops all three. Logs go to .run/*.log.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .run bin
go build -o bin/sidecar ./cmd/sidecar
go build -o bin/controlplane ./cmd/controlplane
go build -o bin/upstream ./examples/upstream

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

wait_http() { # url name logfile
  for _ in $(seq 1 200); do
    if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "$2 did not come up; its log ($3):" >&2; tail -n 30 "$3" >&2; exit 1
}
for port in 8080 9090 8765 18080 18081 15432; do
  if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
    echo "port $port on 127.0.0.1 is in use (an earlier make run still running?); stop it first" >&2; exit 1
  fi
done

# The table the printed PostgreSQL example drops (created directly on the upstream).
psql -q -h 127.0.0.1 -U postgres -d postgres -c 'CREATE TABLE IF NOT EXISTS hoop_demo (id int)' >/dev/null 2>&1 \
  || echo "note: could not create hoop_demo on 127.0.0.1:5432 (is PostgreSQL running?)" >&2
bin/controlplane serve --config examples/controlplane.yaml >.run/controlplane.log 2>&1 & pids+=($!)
wait_http http://127.0.0.1:8080/healthz controlplane .run/controlplane.log
bin/upstream -listen 127.0.0.1:18081 >.run/upstream.log 2>&1 & pids+=($!)
HOOP_SIDECAR_TOKEN=dev-sidecar-token bin/sidecar run -config examples/config.yaml >.run/sidecar.log 2>&1 & pids+=($!)
wait_http http://127.0.0.1:9090/readyz sidecar .run/sidecar.log

cat <<'MSG'

hoop Sidecar is up.
  Control Plane   http://127.0.0.1:8080   (approver web page; user any, password dev-approver-token)
  Sidecar admin   http://127.0.0.1:9090/readyz  /metrics
  MCP server      http://127.0.0.1:8765/mcp    (claude mcp add --transport http hoop-approvals http://127.0.0.1:8765/mcp)
  Logs            .run/controlplane.log .run/sidecar.log .run/upstream.log .run/audit.jsonl
MSG
for f in scripts/next-steps/*.txt; do [ -f "$f" ] && cat "$f"; done
cat <<'MSG'

Approver CLI (in another shell):
  bin/controlplane list --token dev-approver-token
  bin/controlplane approve <id> --token dev-approver-token
  bin/controlplane reject <id> --reason "not now" --token dev-approver-token
  bin/controlplane reopen <id> --token dev-approver-token   # ask again for a rejected or revoked one

Ctrl-C stops everything.
MSG
stopping=""
trap 'stopping=1; cleanup' INT TERM
wait -n "${pids[@]}" || true
if [ -z "$stopping" ]; then
  echo "a process stopped by itself; see .run/*.log" >&2
  exit 1
fi
