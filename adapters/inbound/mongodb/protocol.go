package mongodb

import (
	"context"
	"log/slog"
	"net"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
	"github.com/hoophq/sidecar/internal/tlsconf"
)

// Protocol is the mongodb listener protocol. One value serves any number of
// listeners; it is safe for concurrent use.
type Protocol struct {
	log *slog.Logger
}

// New returns the mongodb protocol, logging to log (discarded when nil).
func New(log *slog.Logger) *Protocol {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Protocol{log: log}
}

// Name returns "mongodb", the protocol's name in the config file.
func (p *Protocol) Name() string { return "mongodb" }

// CheckUpstream implements app.UpstreamChecker: a mongodb listener's
// upstream is one host:port (a mongod or mongos; not a mongodb:// URL, not
// a replica set seed list).
func (p *Protocol) CheckUpstream(upstream string) error {
	return app.CheckHostPort("mongodb", "mongo:27017", upstream)
}

// Serve accepts MongoDB clients on ln and passes each through to the
// listener's upstream until ctx is cancelled or ln is closed. Then its
// sessions drain (drain.go, app.Protocol): each closes once no command of
// it is in flight, and those left when l.DrainDeadline is closed are closed
// then.
func (p *Protocol) Serve(ctx context.Context, ln net.Listener, l *app.Listener) error {
	certs := tlsconf.NewCertLoader(l)
	return drain.Serve(ctx, ln, l, p.log, "mongodb", func(conn net.Conn, d *drain.Set) { p.handle(conn, l, certs, d) })
}

// handle runs one client connection to its end.
func (p *Protocol) handle(conn net.Conn, l *app.Listener, certs *tlsconf.CertLoader, d *drain.Set) {
	defer conn.Close()
	set := l.Settings()
	log := p.log.With("listener", set.Name, "client", conn.RemoteAddr().String())
	defer func() {
		if r := recover(); r != nil {
			log.Error("mongodb connection failed; closed", "panic", r)
		}
	}()
	s, err := startup(conn, l, certs, log)
	if err != nil {
		log.Info("mongodb connection ended before its first command", "error", err)
		return
	}
	d.Add(s)
	defer d.Remove(s)
	s.run()
}
