// Package faults runs the Sidecar and the reference Control Plane as
// binaries with faults put between them and between the Sidecar and its
// upstream, and checks the histories after an agent resends as the denials
// tell it: the upstream's own rows and the Control Plane's record of the
// approval (issue 30).
//
//   - lostanswer_test.go: a proxy in front of the Control Plane (proxy_test.go)
//     loses a claim's or a settle's answer after the call was applied,
//     answers past the Sidecar's timeout, takes a call and never answers, or
//     resets an answer half-way; the approved INSERT runs exactly once and
//     its approval reads EXECUTED (docs/control-plane-api.md, "Claim").
//   - lease_test.go: under spend_approval_on: accepted, a statement longer
//     than the Control Plane's processing_lease keeps its lease, and a
//     Sidecar killed (SIGKILL) between claim and settle leaves the approval
//     PROCESSING only until the lease lapses, then EXECUTED, outcome unknown
//     (docs/control-plane-api.md, "Renew").
//
// The scenarios below are runs of one checker (checker_test.go) on one
// topology, the fleet: two Control Plane replicas on one store, two Sidecar
// replicas (one spending approvals when sent, one when accepted), each
// calling its own Control Plane through the proxy; agents on each sending
// distinct held INSERTs and resending as told, an approver approving
// whatever is PENDING. The checker reads the upstream's rows and every
// approval: each statement ran as many times as it must (once, or twice
// where its first answer was cut) under exactly as many EXECUTED approvals
// (nothing ran without an approval, no approval ran twice, every EXECUTED
// approval was forwarded, every approval given ran or is still usable),
// and none is left PROCESSING after its lease.
//
//   - chaos_test.go: a quarter of the Sidecars' writes to the Control Planes
//     faulted at random by the proxy (drop, late, half, hang). With claims
//     sent without a key (the code before issue 30) it finds a statement
//     with two EXECUTED approvals.
//   - store_test.go: the Control Planes' PostgreSQL store restarted during
//     concurrent claims: a private cluster (initdb and pg_ctl from
//     pg_config --bindir in a temporary folder on a free port, run as the
//     OS user postgres when the test runs as root), stopped with pg_ctl
//     stop -m immediate or -m fast as a claim goes through, down for a
//     second, started again; four times. It is a real restart of a real
//     server rather than a proxy cutting the store's connections, and this
//     machine's server at 127.0.0.1:5432, which other packages use at the
//     same time, is never restarted (it is the upstream). Fails when the
//     Sidecar forwards a statement whose claim the Control Plane could not
//     answer (statements run with no EXECUTED approval).
//   - kill_test.go: kill -9 of a Control Plane replica mid-request: every
//     fourth claim or settle is forwarded and, 0–3 ms later while it is
//     with the Control Plane, the replica gets SIGKILL; it is started again
//     on its address and store (six kills). Fails with claims sent without
//     a key (statements with two EXECUTED approvals).
//   - upstream_test.go, mariadb_test.go: the upstream reset mid-result, on
//     PostgreSQL and on MariaDB. The stand-in is a TCP proxy of the test's
//     own between each Sidecar and the server (resetProxy, not toxiproxy:
//     it cuts only the first answer of each statement, at an exact byte,
//     and sends an RST; toxiproxy's limit_data applies to every connection
//     alike, so it would cut the approved resend too, closes with a FIN,
//     and reset_peer resets on a timer, not at a point of the answer; and
//     it adds no module). The statement INSERTs, commits
//     (PostgreSQL: COMMIT inside the text; MariaDB: autocommit) and then
//     answers some 450 kB of rows; the proxy relays the first 32 kB (200
//     kB on MariaDB, whose listener buffers 32 kB before it writes) of each
//     statement's first answer, some rows reach the agent, then it resets
//     both connections. The approval reads EXECUTED (an unknown outcome
//     spends it), the agent's next identical send is held as a new
//     approval before it runs again (the agent loop checks it), and the
//     upstream's record shows two runs, each under its own EXECUTED
//     approval. Fails when a lost upstream gives the approval back (the
//     PostgreSQL session's SpendAll, the mysql listener's query path).
//
// The upstreams are this machine's PostgreSQL and MariaDB (or the
// harness's containers, harness.PickUpstream says which).
package faults
