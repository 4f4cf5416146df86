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
// the listener keys it reads beyond the common ones (config.Checks'
// IdentityKeys and ClientCertificates, and Unread: the statements whose body
// its analyzer does not read, for validate's warning; its Action and
// Upstream checks come from the protocol itself, see protocolChecks), and
// how `sidecar explain` reads a statement for it.
type registered struct {
	build func(*slog.Logger) app.Protocol
	keys  config.Checks
	// explain reads one statement as this protocol's listener would
	// (`sidecar explain`, explain.go).
	explain explainFunc
}

// registry is every listener protocol this binary serves. Adding a protocol
// is one entry here and one package under adapters/inbound/; `sidecar
// validate` learns its vocabulary and keys from the entry, with no switch on
// protocol names anywhere else.
var registry = []registered{
	{func(l *slog.Logger) app.Protocol { return grpclistener.New(l) }, config.Checks{IdentityKeys: true,
		Unread: nil}, // a call's effect is read from its method name; nothing runs unread
		one(grpclistener.Explain)},
	{func(l *slog.Logger) app.Protocol { return httplistener.New(l) }, config.Checks{IdentityKeys: true, Masking: true,
		Unread: nil}, // a request's effect is its method's; nothing runs unread
		one(httplistener.Explain)},
	{func(l *slog.Logger) app.Protocol { return mongodb.New(l) }, config.Checks{ClientCertificates: true, Masking: true,
		Unread: []string{"find with $where", "mapReduce", "aggregate with $function or $accumulator"}},
		explainMongoDB},
	{func(l *slog.Logger) app.Protocol { return mssql.New(l) }, config.Checks{Masking: true,
		Unread: []string{"EXEC of a stored procedure", "EXEC (@sql)", "sp_executesql @sql"}},
		explainMSSQL},
	{func(l *slog.Logger) app.Protocol { return mysql.New(l) }, config.Checks{Masking: true,
		Unread: []string{"CALL of a stored procedure", "PREPARE … FROM @var then EXECUTE"}},
		explainMySQL},
	{func(l *slog.Logger) app.Protocol { return postgres.New(l) }, config.Checks{Masking: true,
		Unread: []string{"DO $$…$$", "CALL of a procedure", "SELECT of a user function (its body)"}},
		explainPostgres},
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
