// Package mysqlconf is the conformance suite of the mysql listener: the real
// sidecar and controlplane binaries (conformance/harness), the real mariadb
// CLI, go-sql-driver/mysql (text protocol, and the binary protocol with
// interpolateParams=false) and Node mysql2, against a real MySQL or MariaDB
// upstream (upstream_test.go says which, and each run prints it).
// Approvals are decided with the reference Control Plane's CLI.
package mysqlconf
