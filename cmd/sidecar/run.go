package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/version"
	"github.com/hoophq/sidecar/ports"
)

func runCmd() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "run -config FILE",
		Short: "Serve the listeners of a config file",
		Long: `run loads FILE, refuses to start on any mistake (the same ones validate prints, plus the
spec's refusals: an mcp block needs listen and a Control Plane), binds every listener and the MCP
server (a bind failure stops the Sidecar), and serves until SIGINT or SIGTERM.

SIGHUP reloads listeners and rules from FILE without dropping live connections. A reload never
starts, stops or moves the MCP server: restart the Sidecar after you add, remove or change the
mcp block.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if path == "" {
				return errors.New("run needs -config FILE")
			}
			return run(path)
		},
	}
	cmd.Flags().StringVarP(&path, "config", "c", "", "path to config.yaml")
	return cmd
}

// run starts the Sidecar and blocks until a stop signal.
func run(path string) error {
	f, errs, err := loadConfig(path)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(os.Stderr, e.Error())
		}
		return fmt.Errorf("refusing to start: %s has %d mistake(s)", path, len(errs))
	}
	log := newLogger(f.Log)
	setMemoryLimit(config.LimitsOf(f), log)
	var sup *app.Supervisor
	fxApp := fx.New(
		fx.WithLogger(func() fxevent.Logger {
			// fx's own events (provided, invoked, hooks run, with stack
			// traces) are wiring detail: debug. Its errors stay errors.
			l := &fxevent.SlogLogger{Logger: log.With("component", "fx")}
			l.UseLogLevel(slog.LevelDebug)
			return l
		}),
		fx.Supply(f, log, path),
		fx.Provide(newMetrics, newControlPlane, newAudit, newCore, newSupervisor, newMCP, newAdmin),
		fx.Invoke(startListeners, startMCP, startAdmin, watchReload),
		fx.Populate(&sup),
	)
	if err := fxApp.Err(); err != nil {
		return err
	}
	startCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fxApp.Start(startCtx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	log.Info("sidecar ready", "sidecar", f.Sidecar, "version", version.Version, "listeners", sup.Count(), "config", path)
	sig := <-fxApp.Done()
	log.Info("stopping", "signal", sig.String())
	stopCtx, cancel2 := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel2()
	return fxApp.Stop(stopCtx)
}

func newMetrics() *app.Metrics { return app.NewMetrics() }

func newCore(f *config.File, cp ports.ControlPlane, audit ports.AuditSink, log *slog.Logger, m *app.Metrics) *app.Core {
	return app.NewCore(app.CoreOptions{Sidecar: f.Sidecar, CP: cp, Audit: audit, Log: log, Metrics: m, WithMCP: f.MCP != nil,
		Limits: config.LimitsOf(f)})
}

func newSupervisor(core *app.Core, log *slog.Logger) *app.Supervisor {
	return app.NewSupervisor(core, protocols(log), log)
}

func startListeners(lc fx.Lifecycle, sup *app.Supervisor, f *config.File) {
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error { return sup.Apply(config.Settings(f)) },
		OnStop:  func(context.Context) error { sup.StopAll(); return nil },
	})
}

// watchReload reloads listeners and rules on SIGHUP.
func watchReload(lc fx.Lifecycle, sup *app.Supervisor, f *config.File, path string, log *slog.Logger) {
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			signal.Notify(ch, syscall.SIGHUP)
			go func() {
				for {
					select {
					case <-ch:
						reload(sup, f, path, log)
					case <-done:
						return
					}
				}
			}()
			return nil
		},
		OnStop: func(context.Context) error { signal.Stop(ch); close(done); return nil },
	})
}

// reload applies path's listeners and rules. An invalid file is logged and
// ignored (the running config stays). Changes to the mcp block, the Control
// Plane, the admin address or audit are logged as needing a restart.
func reload(sup *app.Supervisor, running *config.File, path string, log *slog.Logger) {
	f, errs, err := loadConfig(path)
	if err == nil && len(errs) > 0 {
		err = errs
	}
	if err != nil {
		log.Error("reload refused; the running config stays", "config", path, "error", err.Error())
		return
	}
	if !sameMCP(running.MCP, f.MCP) {
		log.Warn("reload does not start, stop or move the MCP server; restart the Sidecar to apply the mcp block")
	}
	if !sameCP(running.ControlPlane, f.ControlPlane) {
		log.Warn("reload does not change the Control Plane connection; restart the Sidecar to apply control_plane")
	}
	if config.LimitsOf(running) != config.LimitsOf(f) {
		log.Warn("reload does not change the memory limits; restart the Sidecar to apply the limits block")
	}
	if err := sup.Apply(config.Settings(f)); err != nil {
		log.Error("reload applied partly", "error", err)
		return
	}
	log.Info("reloaded listeners and rules", "config", path, "listeners", sup.Count())
}

func sameMCP(a, b *config.MCP) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Listen == b.Listen && fmt.Sprint(a.AllowedHosts) == fmt.Sprint(b.AllowedHosts)
}

func sameCP(a, b *config.ControlPlane) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func newLogger(l config.Log) *slog.Logger {
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(l.Level))
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, opts)
	if l.Format == "json" {
		h = slog.NewJSONHandler(os.Stderr, opts)
	}
	log := slog.New(h)
	slog.SetDefault(log)
	return log
}
