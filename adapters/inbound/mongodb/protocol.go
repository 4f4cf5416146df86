package mongodb

import (
	"log/slog"
	"net"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// Protocol is the mongodb listener protocol: Name and Serve are
// drain.Server's; a session drains once no command of it is in flight.
// One value serves any number of listeners; it is safe for concurrent use.
type Protocol struct {
	drain.Server[*session]
}

// New returns the mongodb protocol, logging to log (discarded when nil).
func New(log *slog.Logger) *Protocol {
	c := &cursors{} // shared by the listeners' sessions: a getMore may come on any connection
	return &Protocol{drain.NewServer("mongodb", log, func(conn net.Conn, l *app.Listener, certs *tlsconf.CertLoader, log *slog.Logger) (*session, error) {
		return startup(conn, l, certs, log, c)
	}, startupEnded)}
}

// startupEnded logs a connection that ended before its first command
// (drain.Ended).
func startupEnded(_ net.Conn, err error, log *slog.Logger) {
	log.Info("mongodb connection ended before its first command", "error", err)
}
