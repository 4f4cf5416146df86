package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/hoophq/sidecar/cmd/controlplane/cpconfig"
	"github.com/hoophq/sidecar/cmd/controlplane/notify"
	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/cmd/controlplane/slackapp"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/internal/cliconfig"
	"github.com/hoophq/sidecar/internal/version"
)

func newServeCmd() *cobra.Command {
	var cfgFlag *string
	var listen, logFormat, logLevel string
	var apiVersion int
	cmd := &cobra.Command{
		Use:   "serve --config FILE",
		Short: "Run the Control Plane (Sidecar API, approver API, web page)",
		Long: `serve runs the Control Plane on the address and store of its config file,
given as --config FILE, -config FILE or a positional FILE
(see examples/controlplane.yaml and docs/controlplane.md). It logs one line per
HTTP request (health probes at debug) and stops cleanly on SIGINT or SIGTERM.

--api-version is a testing aid: it sets what the X-Hoop-Api-Version header and
/api/sidecars/info say, so that other tests can play an OLDER Control Plane;
0 leaves the header out. Keep the default (1) in real use.`,
		Args: cliconfig.Args,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfgPath, err := cliconfig.Path(cmd, cfgFlag, args)
			if err != nil {
				return fmt.Errorf("%w; see examples/controlplane.yaml", err)
			}
			if apiVersion < 0 {
				return fmt.Errorf("--api-version %d: must be 0 (header left out) or more", apiVersion)
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return fmt.Errorf("--log-level %q: must be debug, info, warn or error", logLevel)
			}
			opts := &slog.HandlerOptions{Level: level}
			var log *slog.Logger
			switch logFormat {
			case "text":
				log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), opts))
			case "json":
				log = slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), opts))
			default:
				return fmt.Errorf("--log-format %q: must be text or json", logFormat)
			}
			cfg, err := cpconfig.Load(cfgPath)
			if err != nil {
				return err
			}
			if listen != "" {
				cfg.Listen = listen
			}
			return serve(cmd.Context(), cfg, apiVersion, log)
		},
	}
	cfgFlag = cliconfig.AddFlag(cmd)
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "host:port to listen on, overriding the config's listen (port 0 picks a free one)")
	f.IntVar(&apiVersion, "api-version", server.APIVersion, "testing aid: X-Hoop-Api-Version to send (0 = leave the header out)")
	f.StringVar(&logFormat, "log-format", "text", "log format on stderr: text or json")
	f.StringVar(&logLevel, "log-level", "info", "lowest level logged: debug (adds health probes), info, warn or error")
	return cmd
}

// serve runs until ctx ends, then shuts down within 10 s.
func serve(ctx context.Context, cfg *cpconfig.Config, apiVersion int, log *slog.Logger) error {
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	st, err := store.Open(openCtx, cfg.Store, store.WithProcessingLease(cfg.ProcessingLease),
		store.WithOutbox(notify.Names(cfg.Webhooks)))
	cancel()
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	public := cfg.PublicURL
	if public == "" { // the address bound, so --listen and port 0 are right too
		public = "http://" + loopbackIfAny(ln.Addr().(*net.TCPAddr))
	}
	outbox, _ := store.OutboxOf(st)
	notifier := notify.New(notify.Options{Outbox: outbox, Store: st, Webhooks: cfg.Webhooks, PublicURL: public,
		Version: version.Version, Logger: log, Remind: func(rule string) (time.Duration, string) {
			p := cfg.Policies.For(rule)
			return p.RemindAfter, p.EscalateTo
		}})
	defer func() {
		// Tries under way get a few seconds to end; the rest stay in the outbox for the next start.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		notifier.Close(ctx)
	}()
	opts := server.Options{Store: st, Sidecars: cfg.Sidecars, Approvers: cfg.Approvers,
		Version: version.Version, APIVersion: apiVersion, OmitAPIVersion: apiVersion == 0, Logger: log,
		Requested: notifier.Requested, Policies: cfg.Policies, OIDC: webOIDC(cfg.OIDC, public)}
	if s := cfg.Slack; s != nil {
		app := slackapp.New(slackapp.Options{BotToken: s.BotToken, SigningSecret: s.SigningSecret, Channel: s.Channel,
			APIURL: s.APIURL, PublicURL: public, IncludeStatement: s.IncludeStatement, GiveUpAfter: s.GiveUpAfter,
			Store: st, Policies: cfg.Policies, SlackUsers: cfg.SlackUsers, Logger: log})
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			app.Close(ctx)
		}()
		opts.Slack = app
		opts.Requested = func(rec store.Record) { notifier.Requested(rec); app.Requested(rec) }
	}
	hs := &http.Server{
		Handler:           server.New(opts),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("control plane listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(),
		"store", store.Kind(st), "store_addr", cpconfig.Redact(cfg.Store), "sidecars", len(cfg.Sidecars),
		"approvers", len(cfg.Approvers), "approval_policies", len(cfg.Policies.Policies), "webhooks", len(cfg.Webhooks), "slack", cfg.Slack != nil, "processing_lease", cfg.ProcessingLease.String(), "api_version", apiVersion, "version", version.Version)
	sweepCtx, stopSweep := context.WithCancel(context.Background())
	defer stopSweep()
	go sweepLeases(sweepCtx, st, log)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("control plane stopping")
	shCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// loopbackIfAny is addr as host:port, with 127.0.0.1 for an unspecified
// host (0.0.0.0 or ::), which no one can open.
func loopbackIfAny(addr *net.TCPAddr) string {
	if addr.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(addr.Port))
	}
	return addr.String()
}
