# Sourced by scripts/deps.sh (make deps), from the repository root: the
# private servers of conformance/differential. It runs its own MariaDB
# (mariadb-install-db + mariadbd, as the OS user mysql) and its own
# PostgreSQL (initdb + postgres from the folder `pg_config --bindir` names,
# as the OS user postgres, with pg_stat_statements), each on a temporary
# folder and a free port. Idempotent: apt runs only when a binary is missing.
apt_install mariadb-server mariadbd mariadb-install-db
if ! { command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ] &&
  [ -f "$(pg_config --pkglibdir)/pg_stat_statements.so" ]; }; then
  echo "deps: installing Debian packages postgresql postgresql-contrib libpq-dev (initdb, postgres, pg_stat_statements, pg_config)"
  if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-contrib libpq-dev >/dev/null
fi
