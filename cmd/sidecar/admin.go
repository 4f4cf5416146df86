package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.uber.org/fx"

	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/adapters/outbound/metrics"
	"github.com/hoophq/sidecar/internal/supervisor"
	"github.com/hoophq/sidecar/ports"
)

// admin serves /healthz (the process is up), /readyz (every listener of the
// applied config is serving, the Sidecar is not shutting down, and the
// Control Plane answered, when there is one; a refused Sidecar token is named
// as the reason) and /metrics (Prometheus). It is off unless the config has
// an admin block.
type admin struct {
	srv *http.Server
	ln  net.Listener
}

// cpPinger checks that the Control Plane answers (nil when there is none).
type cpPinger func(ctx context.Context) error

func newAdmin(f *config.File, sup *supervisor.Supervisor, m *metrics.Prometheus, ping cpPinger, log *slog.Logger) *admin {
	if f.Admin == nil {
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := sup.Ready(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if ping != nil {
			ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
			defer cancel()
			if err := ping(ctx); err != nil {
				http.Error(w, notReady(err), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	mux.Handle("GET /metrics", m.Handler())
	if pprofOn() {
		mountPprof(mux)
		log.Warn("admin: /debug/pprof/ is served (" + pprofEnv + "=1); profiles show request data, keep the admin address private")
	}
	return &admin{srv: &http.Server{Addr: f.Admin.Listen, Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
}

func startAdmin(lc fx.Lifecycle, a *admin, log *slog.Logger) {
	if a == nil {
		return
	}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", a.srv.Addr)
			if err != nil {
				return err
			}
			a.ln = ln
			log.Info("admin listening", "listen", ln.Addr().String(), "paths", "/healthz /readyz /metrics")
			go func() {
				if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("admin server stopped", "error", err)
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error { return a.srv.Shutdown(ctx) },
	})
}

// notReady is /readyz's reason for a failed Control Plane ping. A refused
// Sidecar token leads, since it does not heal by waiting.
func notReady(err error) string {
	if errors.Is(err, ports.ErrUnauthorized) {
		return "the Control Plane refused the Sidecar token; statements that need approval are denied until it is fixed (" + err.Error() + ")"
	}
	return "control plane: " + err.Error()
}
