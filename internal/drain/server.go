package drain

import (
	"context"
	"log/slog"
	"net"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/logging"
)

// Server is the part of app.Protocol every database listener shares: its
// name and a Serve that runs Serve with the protocol's startup and
// login-ended steps. A protocol's value embeds it (NewServer in its New);
// what the protocol says when it drains is its Startup's session's.
type Server[S interface {
	comparable
	Conn
}] struct {
	name    string
	log     *slog.Logger
	startup Startup[S]
	ended   Ended
}

// NewServer returns the Server of protocol name (its name in the config
// file), logging to log (discarded when nil), logging clients in with
// startup and telling a failed login with ended.
func NewServer[S interface {
	comparable
	Conn
}](name string, log *slog.Logger, startup Startup[S], ended Ended) Server[S] {
	return Server[S]{name: name, log: logging.OrDiscard(log), startup: startup, ended: ended}
}

// Log returns the protocol's logger (never nil).
func (s Server[S]) Log() *slog.Logger { return s.log }

// Name returns the protocol's name in the config file.
func (s Server[S]) Name() string { return s.name }

// Serve accepts clients on ln and passes each through to the listener's
// upstream until ctx is cancelled or ln is closed; then its sessions drain
// (Serve, app.Protocol): each closes once it is idle, and those left when
// l.DrainDeadline is closed are closed then, each with its protocol's
// shutdown error.
func (s Server[S]) Serve(ctx context.Context, ln net.Listener, l *app.Listener) error {
	return Serve(ctx, ln, l, s.log, s.name, s.startup, s.ended)
}
