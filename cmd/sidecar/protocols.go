package main

import (
	"log/slog"
	"sort"

	grpclistener "github.com/hoophq/sidecar/adapters/inbound/grpc"
	httplistener "github.com/hoophq/sidecar/adapters/inbound/http"
	"github.com/hoophq/sidecar/adapters/inbound/postgres"
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

func protocolNames() []string {
	var out []string
	for _, p := range protocols(slog.Default()) {
		out = append(out, p.Name())
	}
	sort.Strings(out)
	return out
}
