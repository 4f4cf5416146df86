package main

import (
	"context"
	"errors"
	"log/slog"

	"go.uber.org/fx"

	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/ports"
)

// newControlPlane returns the Control Plane client (nil, nil when the config
// has no control_plane block) and a ping used by /readyz.
func newControlPlane(f *config.File, m *app.Metrics, log *slog.Logger) (ports.ControlPlane, cpPinger, error) {
	if f.ControlPlane == nil {
		log.Warn("no control_plane configured: statements that need approval are denied; status path answers 503")
		return nil, nil, nil
	}
	return nil, nil, errors.New("control plane client not wired yet")
}

func newAudit(lc fx.Lifecycle, f *config.File) (ports.AuditSink, error) {
	return nil, nil
}

// mcpServer is the MCP server's lifecycle surface.
type mcpServer interface {
	Start() error
	Addr() string
	Shutdown(ctx context.Context) error
}

func newMCP(f *config.File, core *app.Core, log *slog.Logger) (mcpServer, error) {
	return nil, nil
}

func startMCP(lc fx.Lifecycle, s mcpServer, log *slog.Logger) {
	if s == nil {
		return
	}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			if err := s.Start(); err != nil {
				return err
			}
			log.Info("MCP server listening", "url", "http://"+s.Addr()+"/mcp")
			return nil
		},
		OnStop: s.Shutdown,
	})
}
