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

// registered is one listener protocol this binary serves: how to build it,
// and the listener keys it reads beyond the common ones (config.Checks'
// IdentityKeys and ClientCertificates; its Action and Upstream checks come
// from the protocol itself, see protocolChecks).
type registered struct {
	build func(*slog.Logger) app.Protocol
	keys  config.Checks
}

// registry is every listener protocol this binary serves. Adding a protocol
// is one entry here and one package under adapters/inbound/; `sidecar
// validate` learns its vocabulary and keys from the entry, with no switch on
// protocol names anywhere else.
var registry = []registered{
	{func(l *slog.Logger) app.Protocol { return grpclistener.New(l) }, config.Checks{IdentityKeys: true}},
	{func(l *slog.Logger) app.Protocol { return httplistener.New(l) }, config.Checks{IdentityKeys: true}},
	{func(l *slog.Logger) app.Protocol { return mongodb.New(l) }, config.Checks{ClientCertificates: true}},
	{func(l *slog.Logger) app.Protocol { return mssql.New(l) }, config.Checks{}},
	{func(l *slog.Logger) app.Protocol { return mysql.New(l) }, config.Checks{}},
	{func(l *slog.Logger) app.Protocol { return postgres.New(l) }, config.Checks{}},
}

// protocols returns every listener protocol this binary serves, built with
// log.
func protocols(log *slog.Logger) []app.Protocol {
	out := make([]app.Protocol, len(registry))
	for i, r := range registry {
		out[i] = r.build(log)
	}
	return out
}

// protocolChecks maps each protocol to what config.Validate checks for it:
// the keys its entry registers, and its action vocabulary and upstream check
// when it offers them (app.ActionChecker, app.UpstreamChecker).
func protocolChecks() config.Protocols {
	out := config.Protocols{}
	for _, r := range registry {
		p := r.build(slog.Default())
		c := r.keys
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
