package mongodb

import (
	"log/slog"
	"net"

	"github.com/hoophq/sidecar/internal/drain"
)

// Protocol is the mongodb listener protocol: Name and Serve are
// drain.Server's; a session drains once no command of it is in flight.
// One value serves any number of listeners; it is safe for concurrent use.
type Protocol struct {
	drain.Server[*session]
}

// New returns the mongodb protocol, logging to log (discarded when nil).
func New(log *slog.Logger) *Protocol {
	return &Protocol{drain.NewServer("mongodb", log, startup, startupEnded)}
}

// startupEnded logs a connection that ended before its first command
// (drain.Ended).
func startupEnded(_ net.Conn, err error, log *slog.Logger) {
	log.Info("mongodb connection ended before its first command", "error", err)
}
