package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.uber.org/fx"

	mcpserver "github.com/hoophq/sidecar/adapters/inbound/mcp"
	"github.com/hoophq/sidecar/adapters/outbound/audit"
	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/adapters/outbound/controlplane"
	"github.com/hoophq/sidecar/adapters/outbound/metrics"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/version"
	"github.com/hoophq/sidecar/ports"
)

// newControlPlane returns the Control Plane client (nil, nil when the config
// has no control_plane block) and a ping used by /readyz.
func newControlPlane(f *config.File, m *metrics.Prometheus, log *slog.Logger) (ports.ControlPlane, cpPinger, error) {
	if f.ControlPlane == nil {
		log.Warn("no control_plane configured: statements that need approval are denied; status path answers 503")
		return nil, nil, nil
	}
	cp := f.ControlPlane
	var tok controlplane.TokenSource
	var err error
	if cp.TokenEnv != "" {
		tok, err = controlplane.TokenFromEnv(cp.TokenEnv)
	} else {
		tok, err = controlplane.TokenFromFile(cp.TokenFile)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("control_plane: %w", err)
	}
	timeout, _ := time.ParseDuration(cp.Timeout)
	c, err := controlplane.New(controlplane.Options{URL: cp.URL, Token: tok, Timeout: timeout,
		SidecarVersion: version.Version,
		Observe:        m.ObserveControlPlane})
	if err != nil {
		return nil, nil, fmt.Errorf("control_plane: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	switch info, err := c.Info(ctx); {
	case errors.Is(err, ports.ErrUnauthorized):
		log.Error("the Control Plane refused the Sidecar token: statements that need approval are denied until the token is fixed",
			"url", cp.URL, "token_from", tokenFrom(cp), "error", err)
	case err != nil:
		log.Warn("Control Plane does not answer yet; held statements are denied until it does", "url", cp.URL, "error", err)
	default:
		log.Info("Control Plane answers", "url", cp.URL, "api_version", info.APIVersion, "version", info.Version, "sidecar", info.Sidecar,
			"claim_keys", info.ClaimKeys)
	}
	return c, c.Ping, nil
}

// tokenFrom names where the Sidecar token is read from (never its value).
func tokenFrom(cp *config.ControlPlane) string {
	if cp.TokenEnv != "" {
		return "environment variable " + cp.TokenEnv
	}
	return "file " + cp.TokenFile
}

// newAudit opens the audit sink (a discarding one without an audit block).
func newAudit(lc fx.Lifecycle, f *config.File, log *slog.Logger, m *metrics.Prometheus) (ports.AuditSink, error) {
	if f.Audit == nil {
		return audit.Discard, nil
	}
	w, err := audit.Open(f.Audit.File, audit.Options{Log: log, SkipAllows: f.Audit.SkipAllows, OnDrop: m.AuditDropped})
	if err != nil {
		return nil, fmt.Errorf("audit.file: %w", err)
	}
	lc.Append(fx.Hook{OnStop: func(context.Context) error { return w.Close() }})
	return w, nil
}

// mcpServer is the MCP server's lifecycle surface.
type mcpServer interface {
	Start() error
	Addr() string
	Shutdown(ctx context.Context) error
}

// newMCP builds the MCP server when the config has an mcp block (nil
// otherwise). It binds in startMCP; a bind failure stops the Sidecar.
func newMCP(f *config.File, core *app.Core, log *slog.Logger) (mcpServer, error) {
	if f.MCP == nil {
		return nil, nil
	}
	s, err := mcpserver.New(mcpserver.Options{Listen: f.MCP.Listen, AllowedHosts: f.MCP.AllowedHosts,
		Approvals: core.Approvals, Log: log.With("component", "mcp"), Version: version.Version})
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	return s, nil
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
