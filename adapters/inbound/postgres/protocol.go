package postgres

import (
	"context"
	"log/slog"
	"net"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/logging"
)

// Protocol is the postgres listener protocol. One value serves any number of
// listeners; it is safe for concurrent use.
type Protocol struct {
	log     *slog.Logger
	cache   *analyzer.Cache
	cancels *cancelRegistry
	// snapshot reads a listener's settings for one unit (nil: Settings);
	// tests replace it to reload at that moment.
	snapshot func(*app.Listener) *app.ListenerSettings
}

// New returns the postgres protocol, logging to log (discarded when nil).
func New(log *slog.Logger) *Protocol {
	return &Protocol{log: logging.OrDiscard(log), cache: analyzer.NewCache(analyzer.CacheBytes), cancels: newCancelRegistry()}
}

// Name returns "postgres", the protocol's name in the config file.
func (p *Protocol) Name() string { return "postgres" }

// Serve accepts PostgreSQL clients on ln and passes each through to the
// listener's upstream until ctx is cancelled or ln is closed. Then its
// sessions drain (drain.go, app.Protocol): each closes once it is idle, and
// those left when l.DrainDeadline is closed are closed then, each with
// FATAL 57P01 admin_shutdown.
func (p *Protocol) Serve(ctx context.Context, ln net.Listener, l *app.Listener) error {
	return drain.Serve(ctx, ln, l, p.log, p.Name(), p.startup, startupEnded)
}

// startupEnded logs a connection that ended during startup (drain.Ended);
// one the client closed, quietly.
func startupEnded(_ net.Conn, err error, log *slog.Logger) {
	if !isClosed(err) {
		log.Info("postgres connection ended during startup", "error", err)
	}
}
