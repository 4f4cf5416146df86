package mongodb

import (
	"context"
	"log/slog"
	"net"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/logging"
)

// Protocol is the mongodb listener protocol. One value serves any number of
// listeners; it is safe for concurrent use.
type Protocol struct {
	log *slog.Logger
}

// New returns the mongodb protocol, logging to log (discarded when nil).
func New(log *slog.Logger) *Protocol {
	return &Protocol{log: logging.OrDiscard(log)}
}

// Name returns "mongodb", the protocol's name in the config file.
func (p *Protocol) Name() string { return "mongodb" }

// Serve accepts MongoDB clients on ln and passes each through to the
// listener's upstream until ctx is cancelled or ln is closed. Then its
// sessions drain (drain.go, app.Protocol): each closes once no command of
// it is in flight, and those left when l.DrainDeadline is closed are closed
// then.
func (p *Protocol) Serve(ctx context.Context, ln net.Listener, l *app.Listener) error {
	return drain.Serve(ctx, ln, l, p.log, p.Name(), startup, startupEnded)
}

// startupEnded logs a connection that ended before its first command
// (drain.Ended).
func startupEnded(_ net.Conn, err error, log *slog.Logger) {
	log.Info("mongodb connection ended before its first command", "error", err)
}
