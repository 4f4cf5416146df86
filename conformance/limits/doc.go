// Package limits holds the black-box test of the held-payload budget
// (docs/config.md, "limits"): the real sidecar binary, a PostgreSQL and an
// http listener, 200 clients at once each sending a held 8 MiB statement
// while a loop of SELECT 1 / GET keeps running, and the Sidecar's peak
// resident memory (VmHWM) checked against the documented bound.
package limits
