package postgres

import (
	"log/slog"
	"net"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
)

// Protocol is the postgres listener protocol: Name and Serve are
// drain.Server's; the sessions left at the drain deadline get FATAL 57P01
// admin_shutdown. One value serves any number of listeners; it is safe for
// concurrent use.
type Protocol struct {
	drain.Server[*session]
	cache   *analyzer.Cache
	cancels *cancelRegistry
	// snapshot reads a listener's settings for one unit (nil: Settings);
	// tests replace it to reload at that moment.
	snapshot func(*app.Listener) *app.ListenerSettings
}

// New returns the postgres protocol, logging to log (discarded when nil).
func New(log *slog.Logger) *Protocol {
	p := &Protocol{cache: analyzer.NewCache(), cancels: newCancelRegistry()}
	p.Server = drain.NewServer("postgres", log, p.startup, startupEnded)
	return p
}

// startupEnded logs a connection that ended during startup (drain.Ended);
// one the client closed, quietly.
func startupEnded(_ net.Conn, err error, log *slog.Logger) {
	if !isClosed(err) {
		log.Info("postgres connection ended during startup", "error", err)
	}
}
