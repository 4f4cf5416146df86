// Package peersuites runs database drivers' own test suites, the versions
// go.mod pins, twice: directly against the upstream server and through an
// in-process Sidecar listener whose one approval rule is on DROP_DATABASE
// (so the analyzer reads every statement, and nothing the suites send is
// held). It then compares them test by test: a test that passes directly
// and fails or hangs (never ends within the run's timeout) through the
// Sidecar fails the package, naming it; one that runs 10x slower (and at
// least slowFloor more) is named in the log, not failed: the two runs are
// minutes apart on a shared machine, so their times say how loaded it was
// as much as what the Sidecar costs (bench/ measures that). A test that
// fails or is skipped directly is the baseline, not a difference.
//
// Each suite is the driver's module copied from the module cache to a
// temporary directory, made writable and run there with `go test -json`;
// its test dependencies come from the Go module proxy. The suites:
//
//   - pgx_test.go: github.com/jackc/pgx/v5 against PostgreSQL (the postgres
//     listener), in a database peers_pgx_<random> with the extensions and
//     domain pgx's testsetup creates.
//   - gomysql_test.go: github.com/go-sql-driver/mysql against MariaDB (the
//     mysql listener), in a database peers_mysql_<random>.
//
// A test left out of both runs is in its suite's skip list with the reason
// (not runnable here, or a known difference and the issue point that
// tracks it). The upstreams are harness.PickUpstream's (an explicit URL,
// a container, else this machine's servers). Issue 31 asked for it.
package peersuites
