package mssql

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hoophq/sidecar/adapters/inbound/mssql/analyzer"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/drain"
)

// Protocol is the mssql listener protocol (SQL Server, Azure SQL with SQL
// logins). One value serves any number of listeners; it is safe for
// concurrent use.
type Protocol struct {
	drain.Server[*session]
	cache *analyzer.Cache
	warm  sync.Once
	selfSigned
}

// New returns the mssql protocol, logging to log (discarded when nil).
func New(log *slog.Logger) *Protocol {
	p := &Protocol{cache: analyzer.NewCache()}
	p.Server = drain.NewServer("mssql", log, p.startup, loginEnded)
	return p
}

// Serve is drain.Server's (the sessions left at the drain deadline get
// ERROR 6005), after warming the T-SQL parser in the background on the
// first Serve (its first parses are slow).
func (p *Protocol) Serve(ctx context.Context, ln net.Listener, l *app.Listener) error {
	p.warm.Do(func() {
		go func() {
			start := time.Now()
			analyzer.Warm()
			// The warm-up's garbage is about twice the cache it leaves
			// (tens of MiB): give those pages back rather than keep them
			// in the process's RSS until the runtime's scavenger gets to it.
			debug.FreeOSMemory()
			p.Log().Info("mssql T-SQL analyzer warmed: first sights of typical statements are fast now", "took", time.Since(start).Round(time.Millisecond))
		}()
	})
	return p.Server.Serve(ctx, ln, l)
}

// loginEnded tells why a connection ended during login (drain.Ended): a
// client that broke the protocol gets ERROR 4002; one that closed is not
// logged.
func loginEnded(conn net.Conn, err error, log *slog.Logger) {
	var pe *protocolError
	if errors.As(err, &pe) {
		log.Warn("mssql client broke the protocol during login; connection closed", "error", err)
		writeLoginError(conn, errProtocol.with("hoop sidecar: "+pe.msg))
	} else if !isClosed(err) {
		log.Info("mssql connection ended during login", "error", err)
	}
}
