// Package soak runs the Sidecar under a steady load for a while (issue 30
// point 5): agent connections over postgres, mysql and http, one statement
// in ten held and approved by a scripted approver, the reference Control
// Plane restarted every 30 s. At the end a checker reads the histories (the
// upstreams' own record of what ran and the Control Plane's store) and the
// run prints statements per second, the Sidecar's RSS over time and its
// goroutines before and after.
//
// `make test` runs it for HOOP_SOAK_DURATION (default 2m) with
// HOOP_SOAK_AGENTS connections per protocol (default 30); `make soak` for
// 10 minutes with 80 per protocol (240 connections: a PostgreSQL server's
// default max_connections is 100, and each agent holds one upstream
// connection through the Sidecar).
package soak
