# bench/pgbench.sh compares the postgres listener with pgbouncer (session
# mode), Debian's package. Only the binary is used: the script starts its own
# instance on a free port with a generated config; the package's service is
# not needed (stopped if the package started it).
if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  echo "deps: installing Debian package pgbouncer (for bench/pgbench.sh)"
  if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null
  command -v service >/dev/null 2>&1 && service pgbouncer stop >/dev/null 2>&1 || true
fi
