#!/usr/bin/env bash
# make run: brings up the reference Control Plane (embedded SQLite store), an
# example upstream, and a Sidecar from examples/config.yaml, then prints what
# to try next (scripts/next-steps/*.txt). Ctrl-C stops all three. Logs go to
# .run/*.log; the Control Plane's approvals stay in .run/controlplane.db
# across runs until `make clean`.
#
# Every address can be moved with the environment (conformance/makerun runs
# this script on free ports beside a user's make run):
#   HOOP_RUN_CP_PORT (8080)       Control Plane: Sidecar API, approver API, web page
#   HOOP_RUN_ADMIN_PORT (9090)    Sidecar /healthz /readyz /metrics
#   HOOP_RUN_MCP_PORT (8765)      Sidecar MCP server
#   HOOP_RUN_HTTP_PORT (18080)    http listener billing-api
#   HOOP_RUN_UPSTREAM_PORT (18081) the example http upstream
#   HOOP_RUN_PG_PORT (15432)      postgres listener payments
#   HOOP_RUN_PG_UPSTREAM (127.0.0.1:5432) the PostgreSQL the payments listener forwards to
#   HOOP_RUN_PG_USER (postgres)   who the demo logs in as (PGPASSWORD if it needs a password)
#   HOOP_RUN_PG_DB (postgres)     the database that holds the demo table hoop_demo
#   HOOP_RUN_DIR (.run)           logs, audit file and the Control Plane's store
# With any of them set, the configs in use are examples/*.yaml with those
# addresses, written to $HOOP_RUN_DIR; the banner names them.
set -euo pipefail
cd "$(dirname "$0")/.."

CP_PORT=${HOOP_RUN_CP_PORT:-8080}
ADMIN_PORT=${HOOP_RUN_ADMIN_PORT:-9090}
MCP_PORT=${HOOP_RUN_MCP_PORT:-8765}
HTTP_PORT=${HOOP_RUN_HTTP_PORT:-18080}
UPSTREAM_PORT=${HOOP_RUN_UPSTREAM_PORT:-18081}
PG_PORT=${HOOP_RUN_PG_PORT:-15432}
PG_UPSTREAM=${HOOP_RUN_PG_UPSTREAM:-127.0.0.1:5432}
PG_USER=${HOOP_RUN_PG_USER:-postgres}
PG_DB=${HOOP_RUN_PG_DB:-postgres}
RUN_DIR=${HOOP_RUN_DIR:-.run}
mkdir -p "$RUN_DIR" bin

step() { echo "==> $*"; }

# localize rewrites the examples' default addresses, user and folder to the
# ones in use (a no-op with the defaults).
localize() {
  sed -e "s#127\.0\.0\.1:8080\b#127.0.0.1:$CP_PORT#g" \
      -e "s#127\.0\.0\.1:9090\b#127.0.0.1:$ADMIN_PORT#g" \
      -e "s#127\.0\.0\.1:8765\b#127.0.0.1:$MCP_PORT#g" \
      -e "s#127\.0\.0\.1:18080\b#127.0.0.1:$HTTP_PORT#g" \
      -e "s#127\.0\.0\.1:18081\b#127.0.0.1:$UPSTREAM_PORT#g" \
      -e "s#127\.0\.0\.1:15432\b#127.0.0.1:$PG_PORT#g" \
      -e "s#127\.0\.0\.1:5432\b#$PG_UPSTREAM#g" \
      -e "s#postgresql://postgres@\([^/]*\)/postgres?#postgresql://$PG_USER@\1/$PG_DB?#g" \
      -e "s#as postgres without#as $PG_USER without#g" \
      -e "s#\.run/#$RUN_DIR/#g"
}

SIDECAR_CONFIG=examples/config.yaml
CP_CONFIG=examples/controlplane.yaml
if [ "$CP_PORT:$ADMIN_PORT:$MCP_PORT:$HTTP_PORT:$UPSTREAM_PORT:$PG_PORT:$PG_UPSTREAM:$RUN_DIR" != \
     "8080:9090:8765:18080:18081:15432:127.0.0.1:5432:.run" ]; then
  SIDECAR_CONFIG=$RUN_DIR/config.yaml
  CP_CONFIG=$RUN_DIR/controlplane.yaml
  localize <examples/config.yaml >"$SIDECAR_CONFIG"
  localize <examples/controlplane.yaml >"$CP_CONFIG"
fi

for port in "$CP_PORT" "$ADMIN_PORT" "$MCP_PORT" "$HTTP_PORT" "$UPSTREAM_PORT" "$PG_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port on 127.0.0.1 is in use (an earlier make run still running?); stop it first" >&2; exit 1
  fi
done

# go build compiles only what changed since the last build (Go's build cache):
# a second make run relinks in seconds.
step "building ./bin/sidecar (the first build compiles PostgreSQL's parser, C code via cgo: a few minutes on a small machine; later builds take seconds)"
go build -o bin/sidecar ./cmd/sidecar
step "building ./bin/controlplane and ./bin/upstream (the example upstream)"
go build -o bin/controlplane ./cmd/controlplane
go build -o bin/upstream ./examples/upstream

pids=()
stopping=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -n "$stopping" ]; then
    local fresh="make clean removes them"
    [ "$RUN_DIR" = .run ] || fresh="remove $RUN_DIR to start afresh"
    echo "Stopped the Sidecar, the example upstream and the Control Plane. Approvals stay in $RUN_DIR/controlplane.db; $fresh."
  fi
}
trap cleanup EXIT
trap 'stopping=1; exit 130' INT TERM

wait_http() { # url name logfile
  for _ in $(seq 1 300); do
    if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "$2 did not come up; its log ($3):" >&2; tail -n 30 "$3" >&2; exit 1
}

# The table the printed PostgreSQL example counts and drops (created directly on
# the upstream). It gets 3 rows when it has none, so the banner's count before
# the approved DROP (3) and after it (no such table) shows what the DROP did.
step "creating table hoop_demo (3 rows) in database $PG_DB on the PostgreSQL at $PG_UPSTREAM (user $PG_USER, no password unless PGPASSWORD is set)"
if ! psql -q -v ON_ERROR_STOP=1 -h "${PG_UPSTREAM%:*}" -p "${PG_UPSTREAM##*:}" -U "$PG_USER" -d "$PG_DB" \
  -c 'CREATE TABLE IF NOT EXISTS hoop_demo (id int)' \
  -c 'INSERT INTO hoop_demo SELECT g FROM generate_series(1, 3) g WHERE NOT EXISTS (SELECT 1 FROM hoop_demo)' \
  >/dev/null 2>"$RUN_DIR/psql.err"; then
  echo "note: could not create hoop_demo on $PG_UPSTREAM: $(head -n 1 "$RUN_DIR/psql.err")" >&2
  echo "      the PostgreSQL steps need a PostgreSQL there that lets $PG_USER in; see README.md (Try it)" >&2
fi

step "starting the Control Plane on 127.0.0.1:$CP_PORT ($CP_CONFIG)"
./bin/controlplane serve --config "$CP_CONFIG" >"$RUN_DIR/controlplane.log" 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$CP_PORT/healthz" controlplane "$RUN_DIR/controlplane.log"
step "starting the example upstream on 127.0.0.1:$UPSTREAM_PORT and the Sidecar ($SIDECAR_CONFIG)"
./bin/upstream -listen "127.0.0.1:$UPSTREAM_PORT" >"$RUN_DIR/upstream.log" 2>&1 & pids+=($!)
HOOP_SIDECAR_TOKEN=dev-sidecar-token ./bin/sidecar run --config "$SIDECAR_CONFIG" >"$RUN_DIR/sidecar.log" 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$ADMIN_PORT/readyz" sidecar "$RUN_DIR/sidecar.log"

# make clean removes .run only: with another HOOP_RUN_DIR, say which folder to remove.
FRESH="make clean starts from an empty Control Plane"
[ "$RUN_DIR" = .run ] || FRESH="remove $RUN_DIR to start afresh (make clean starts from an empty Control Plane only for the default .run)"
{
cat <<MSG

hoop Sidecar is up.
  Configs         Sidecar $SIDECAR_CONFIG, Control Plane $CP_CONFIG
  Control Plane   http://127.0.0.1:8080   approver web page: sign in as dev, password dev-approver-token
                  (the token is what signs you in and names you; the page says "Signed in as dev")
  Sidecar admin   http://127.0.0.1:9090/readyz  /metrics
  MCP server      http://127.0.0.1:8765/mcp
  Logs            .run/controlplane.log .run/sidecar.log .run/upstream.log .run/audit.jsonl
  Approvals       kept in .run/controlplane.db across runs (a rejected statement stays rejected until reopened);
                  $FRESH

In another shell, from this folder:
  export HOOP_APPROVER_TOKEN=dev-approver-token HOOP_CONTROLPLANE_URL=http://127.0.0.1:8080
MSG
for f in scripts/next-steps/*.txt; do [ -f "$f" ] && cat "$f"; done
cat <<'MSG'

More approver commands: ./bin/controlplane list, reject <id> --reason "not now",
  reopen <id> (asks again for a rejected or revoked one); --help on each.

Ctrl-C stops everything.
MSG
} | localize
wait -n "${pids[@]}" || true
if [ -z "$stopping" ]; then
  echo "a process stopped by itself; see $RUN_DIR/*.log" >&2
  exit 1
fi
