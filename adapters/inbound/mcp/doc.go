// Package mcp is the Sidecar's Model Context Protocol server (spec, "The MCP
// server"): three read-only tools, approval_status, approval_wait and
// approval_list, each also served under its earlier name (review_status,
// review_wait, review_list), over Streamable HTTP at http://<listen>/mcp.
//
// The server keeps no session (go-sdk Stateless mode), so any replica behind
// a load balancer answers any call. It serves every listener of the Sidecar
// and needs a Control Plane; it never returns a statement and approves
// nothing. It has no authentication (as the spec says) but refuses
// cross-origin browser requests and DNS rebinding (guard.go).
//
// Files: server.go (lifecycle), guard.go (Host/Origin checks), hangup.go
// (ending a wait when the caller hangs up), tools.go (tool definitions),
// input.go (arguments, defaults and bounds), wait.go (approval_wait with
// progress), answers.go (answers and error texts).
package mcp
