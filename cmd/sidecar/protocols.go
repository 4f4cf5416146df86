package main

import (
	"log/slog"

	grpclistener "github.com/hoophq/sidecar/adapters/inbound/grpc"
	httplistener "github.com/hoophq/sidecar/adapters/inbound/http"
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
		postgres.New(log),
	}
}

// protocolChecks maps each protocol to its action check (nil: any action).
func protocolChecks() config.Protocols {
	out := config.Protocols{}
	for _, p := range protocols(slog.Default()) {
		out[p.Name()] = nil
		if c, ok := p.(app.ActionChecker); ok {
			out[p.Name()] = c.CheckAction
		}
	}
	return out
}
