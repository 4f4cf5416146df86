// Package supervisor runs the Sidecar's listeners: it owns their sockets
// (app/ binds none), starts each listener's protocol (app.Protocol.Serve),
// applies reloads and drains listeners that stop.
//
// What lives here, one job per file:
//
//   - supervisor.go: Apply (bind and load certificates first, then swap, all
//     or nothing), Shutdown (drain within shutdown_grace, then settle open
//     approvals), Ready (every listener of the applied set serving), and the
//     drain of a stopped listener (deadline, then the protocol's own close,
//     then a plain close).
//   - socket.go: one bound address and its accept loop, which hands each
//     connection to the listener that owns the address now, so a reload can
//     pass an address from one listener to another without closing it.
//   - conns.go: the live connections of one listener, counted so a drain
//     knows when it is over.
//
// docs/config.md (Reload, Shutdown) describes the behaviour for operators;
// docs/architecture.md places the package.
package supervisor
