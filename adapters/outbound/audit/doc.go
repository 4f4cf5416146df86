// Package audit holds the Sidecar's audit sinks (ports.AuditSink): Writer
// records each gate decision (ports.AuditEvent) as one JSON object per line
// to a file or to stdout (config audit.file; "-" = stdout), off the
// statement's path: a bounded queue and one writer goroutine that writes
// batches, drops (and counts) plain allow lines only when it cannot keep up,
// never a denial or an approval, and writes what is queued on Close.
// audit.skip_allows records only decisions other than plain allows. Discard
// drops every event (no audit block).
package audit
