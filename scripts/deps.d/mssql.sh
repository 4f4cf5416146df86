# Sourced by scripts/deps.sh (make deps), from the repository root: the real
# clients of the mssql work. FreeTDS `tsql` comes from Debian (freetds-bin);
# go-mssqldb is a Go module of go.mod. Idempotent.
apt_install freetds-bin tsql
