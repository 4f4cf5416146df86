// Package audit holds the Sidecar's audit sinks (ports.AuditSink): Writer
// records each gate decision (ports.AuditEvent) as one JSON object per line
// to a file or to stdout (config audit.file; "-" = stdout), and Discard
// drops them (no audit block).
package audit
