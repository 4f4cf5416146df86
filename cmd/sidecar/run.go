package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/dig"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/adapters/outbound/metrics"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/internal/cliconfig"
	"github.com/hoophq/sidecar/internal/supervisor"
	"github.com/hoophq/sidecar/internal/version"
	"github.com/hoophq/sidecar/ports"
)

func runCmd() *cobra.Command {
	var flag *string
	cmd := &cobra.Command{
		Use:   "run --config FILE",
		Short: "Serve the listeners of a config file",
		Long: `run loads FILE (--config FILE, -config FILE or a positional FILE), refuses to start on any
mistake that validate prints (e.g. an mcp block without listen or without a control_plane), binds
every listener and the MCP server (a bind failure stops the Sidecar), and serves until SIGINT or
SIGTERM.

SIGHUP reloads listeners and rules from FILE without dropping live connections. A reload is all or
nothing: if an address does not bind or a certificate does not load, nothing changes. A reload never
starts, stops or moves the MCP server: restart the Sidecar after you add, remove or change the
mcp block.

SIGTERM (or SIGINT) stops accepting, ends waits for a person with a shutdown error, lets statements
in flight finish within shutdown_grace (default 25s), closes the connections left, settles every
approval claimed with spend_approval_on: accepted, and exits 0. A second SIGTERM or SIGINT exits at
once (status 1).

` + firstConfigHelp,
		Args: cliconfig.Args,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := cliconfig.Path(cmd, flag, args)
			if err != nil {
				return err
			}
			keepSysmonAwake()
			return run(path)
		},
	}
	flag = cliconfig.AddFlag(cmd)
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
	sqlListeners := 0
	for _, l := range f.Listeners {
		if app.IsSQLProtocol(l.Protocol) {
			sqlListeners++
		}
	}
	setMemoryLimit(config.LimitsOf(f), sqlListeners, log)
	var sup *supervisor.Supervisor
	fxApp := fx.New(
		fx.WithLogger(func() fxevent.Logger {
			// fx's own events (provided, invoked, hooks run, with stack
			// traces) are wiring detail: debug. Its errors too: run returns
			// each one and main prints it as the last line.
			l := &fxevent.SlogLogger{Logger: log.With("component", "fx")}
			l.UseLogLevel(slog.LevelDebug)
			l.UseErrorLevel(slog.LevelDebug)
			return l
		}),
		fx.Supply(f, log, path),
		fx.Provide(newMetrics, newControlPlane, newAudit, newCore, newSupervisor, newMCP, newAdmin),
		fx.Invoke(startListeners, startMCP, startAdmin, watchReload),
		fx.Populate(&sup),
	)
	if err := fxApp.Err(); err != nil {
		// dig wraps a constructor's error in the whole dependency chain
		// (functions, Go files, lines); the user needs the constructor's
		// own message, e.g. "control_plane: control plane token:
		// environment variable HOOP_SIDECAR_TOKEN is not set".
		return dig.RootCause(err)
	}
	startCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fxApp.Start(startCtx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	log.Info("sidecar ready", "sidecar", f.Sidecar, "version", version.Version, "listeners", sup.Count(), "config", path)
	sig := <-fxApp.Done()
	log.Info("stopping: listeners drain", "signal", sig.String(), "shutdown_grace", sup.Grace().String())
	again := make(chan os.Signal, 1)
	signal.Notify(again, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-again
		log.Warn("second stop signal: exiting without waiting for the drain", "signal", s.String())
		os.Exit(1)
	}()
	graceCtx, cancelGrace := context.WithTimeout(context.Background(), sup.Grace())
	defer cancelGrace()
	sup.Shutdown(graceCtx)
	log.Info("listeners drained; stopping")
	// The MCP server ends its waits at once and the admin server has nothing
	// long in flight: 1 s keeps the whole stop within shutdown_grace + 4 s
	// (docs/config.md, Shutdown).
	stopCtx, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	return fxApp.Stop(stopCtx)
}

func newMetrics() *metrics.Prometheus { return metrics.New() }

func newCore(f *config.File, cp ports.ControlPlane, audit ports.AuditSink, log *slog.Logger, m *metrics.Prometheus) *app.Core {
	return app.NewCore(app.CoreOptions{Sidecar: f.Sidecar, CP: cp, Audit: audit, Log: log, Metrics: m, WithMCP: f.MCP != nil,
		Limits: config.LimitsOf(f)})
}

func newSupervisor(f *config.File, core *app.Core, log *slog.Logger) *supervisor.Supervisor {
	return supervisor.New(core, protocols(log), config.ShutdownGrace(f), log)
}

// startListeners binds and serves every listener (a bind or certificate
// failure stops the Sidecar). Its OnStop drains them, for a start that
// failed later on; after a signal run drains them before fx stops.
func startListeners(lc fx.Lifecycle, sup *supervisor.Supervisor, f *config.File) {
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error { return sup.Apply(config.Settings(f)) },
		OnStop:  func(ctx context.Context) error { sup.Shutdown(ctx); return nil },
	})
}

// watchReload reloads listeners and rules on SIGHUP.
func watchReload(lc fx.Lifecycle, sup *supervisor.Supervisor, f *config.File, path string, log *slog.Logger) {
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

// reload applies path's listeners and rules. An invalid file, an address
// that does not bind or a certificate that does not load is logged and
// nothing changes (the running listeners stay). Changes to the mcp block,
// the Control Plane, the admin address or audit are logged as needing a
// restart.
func reload(sup *supervisor.Supervisor, running *config.File, path string, log *slog.Logger) {
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
		log.Error("reload refused; the running listeners stay", "config", path, "error", err.Error())
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
