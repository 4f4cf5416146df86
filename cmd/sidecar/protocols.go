package main

import (
	"log/slog"

	grpclistener "github.com/hoophq/sidecar/adapters/inbound/grpc"
	httplistener "github.com/hoophq/sidecar/adapters/inbound/http"
	"github.com/hoophq/sidecar/adapters/inbound/mongodb"
	"github.com/hoophq/sidecar/adapters/inbound/mssql"
	"github.com/hoophq/sidecar/adapters/inbound/mysql"
	"github.com/hoophq/sidecar/adapters/inbound/postgres"
	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/app"
)

// protocols returns every listener protocol this binary serves. Adding a
// protocol is one line here and one package under adapters/inbound/.
func protocols(log *slog.Logger) []app.Protocol {
	return []app.Protocol{
		grpclistener.New(log),
		httplistener.New(log),
		mongodb.New(log),
		mssql.New(log),
		mysql.New(log),
		postgres.New(log),
	}
}

// protocolChecks maps each protocol to the config checks it offers.
func protocolChecks() config.Protocols {
	out := config.Protocols{}
	for _, p := range protocols(slog.Default()) {
		var c config.Checks
		if a, ok := p.(app.ActionChecker); ok {
			c.Action = a.CheckAction
		}
		if u, ok := p.(app.UpstreamChecker); ok {
			c.Upstream = u.CheckUpstream
		}
		out[p.Name()] = c
	}
	return out
}
