package grpclistener

import (
	"context"
	"errors"

	"google.golang.org/grpc"
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

// holdFirst reads the first request message of a call that an approval rule
// covers into r and takes its size from the process-wide held-payload
// budget (docs/config.md, "limits"); the caller releases the reservation
// once the call is forwarded or denied. gRPC hands over a message only once
// it is whole, so the size is taken right after the read: what stays in
// memory while the gate decides (in wait mode, until a person does) is
// bounded by the budget. A message over MaxHeldMessage, or one the budget
// has no room for, ends the call with RESOURCE_EXHAUSTED.
func (h *handler) holdFirst(ctx context.Context, ss grpc.ServerStream, r *request) (*app.Reservation, error) {
	if err := r.readFirst(ss); err != nil {
		return nil, err
	}
	n := int64(len(r.msg))
	if n > MaxHeldMessage {
		r.msg = nil
		return nil, status.Errorf(codes.ResourceExhausted,
			"grpc listener: the first message of a call that needs human approval may carry at most %d bytes; this one has %d", MaxHeldMessage, n)
	}
	if n <= smallMessage {
		return nil, nil
	}
	held, err := h.l.Held().Reserve(ctx, n)
	if err != nil {
		r.msg = nil
		var be *app.BudgetError
		if !errors.As(err, &be) {
			return nil, status.FromContextError(err).Err()
		}
		h.log.Warn("call refused: the held-payload budget is full", "method", r.method, "bytes", n,
			"budget", be.Size, "client", clientAddr(ctx))
		return nil, status.Error(codes.ResourceExhausted, be.Error())
	}
	return held, nil
}

// smallMessage is the size up to which a held first message takes nothing
// from the held-payload budget.
const smallMessage = 64 << 10
