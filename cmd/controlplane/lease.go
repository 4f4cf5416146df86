package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// sweepLeases writes, until ctx ends, every PROCESSING request whose lease
// lapsed as EXECUTED with an unknown outcome (store.Lapse), every quarter of
// the lease (1 to 15 s), and logs each one it settled so. Reads see a lapsed
// request as EXECUTED at once (store.Record.Effective); the sweep makes the
// store say so too, for lists and for other replicas. Nothing runs when the
// lease is off (0).
func sweepLeases(ctx context.Context, st store.Store, log *slog.Logger) {
	lease := st.Lease()
	if lease <= 0 {
		return
	}
	every := min(max(lease/4, time.Second), 15*time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := st.Lapse(ctx, time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("could not settle the PROCESSING requests whose lease lapsed; retrying", "error", err)
		case n > 0:
			log.Warn("PROCESSING requests settled as EXECUTED, outcome unknown: their Sidecar stopped renewing the lease (it stopped, or lost the Control Plane)",
				"count", n, "lease", lease.String())
		}
	}
}
