package grpclistener

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/app"
)

// MaxHeldMessage is the largest first request message (bytes) of a call that
// an approval rule covers: 8 MiB, as for a held http body. That message is
// part of the statement and is kept in memory until the call is decided; a
// larger one ends the call with RESOURCE_EXHAUSTED. Messages of calls no
// rule covers, and later messages, are relayed up to MaxMessageBytes.
const MaxHeldMessage = 8 << 20

// tooLargeHeld is the text of RESOURCE_EXHAUSTED for a held first message
// of n bytes.
func tooLargeHeld(n int64) string {
	return fmt.Sprintf("grpc listener: the first message of a call that needs human approval may carry at most %d bytes; this one has %d", MaxHeldMessage, n)
}

// holdFirst takes the size of r's first message (read whole by the relay,
// client.go: collected) from the process-wide held-payload budget
// (docs/config.md, "limits"); the caller releases the reservation once the
// call is forwarded or denied. What stays in memory while the gate decides
// (in wait mode, until a person does) is bounded by the budget. A message
// the budget has no room for ends the call with RESOURCE_EXHAUSTED.
func (h *handler) holdFirst(ctx context.Context, r *request) (*app.Reservation, error) {
	n := int64(len(r.msg))
	if n > MaxHeldMessage {
		return nil, status.Error(codes.ResourceExhausted, tooLargeHeld(n))
	}
	if n <= smallMessage {
		return nil, nil
	}
	held, err := h.l.Held().Reserve(ctx, n)
	if err != nil {
		var be *app.BudgetError
		if !errors.As(err, &be) {
			return nil, status.FromContextError(err).Err()
		}
		h.log.Warn("call refused: the held-payload budget is full", "method", r.method, "bytes", n,
			"budget", be.Size)
		return nil, status.Error(codes.ResourceExhausted, be.Error())
	}
	return held, nil
}

// smallMessage is the size up to which a held first message takes nothing
// from the held-payload budget.
const smallMessage = 64 << 10
