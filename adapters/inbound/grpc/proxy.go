package grpclistener

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// dropKeys are request metadata keys the listener does not forward: HTTP/2
// and gRPC transport headers that the listener's own client sets again
// (the deadline travels as the call's deadline, not as grpc-timeout), and
// the Sidecar's own x-hoop-approval.
var dropKeys = map[string]bool{
	"content-type": true, "user-agent": true, "te": true, "host": true,
	"grpc-timeout": true, "grpc-encoding": true, "grpc-accept-encoding": true, "grpc-message-type": true,
	"connection": true, "keep-alive": true, "proxy-connection": true, "transfer-encoding": true, "upgrade": true,
	strings.ToLower(domain.Names.HeaderApprovalMode): true,
}

// forwardMetadata returns the request metadata to send upstream: md without
// pseudo-headers and dropKeys.
func forwardMetadata(md metadata.MD) metadata.MD {
	out := metadata.MD{}
	for k, v := range md {
		if strings.HasPrefix(k, ":") || dropKeys[k] {
			continue
		}
		out[k] = v
	}
	return out
}

// streamDesc: without descriptors every call is relayed as a bidirectional
// stream; the wire format is the same for all four kinds.
var streamDesc = &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}

// proxy relays one call to the upstream: request metadata, the deadline and
// cancellation (through ctx), messages both ways, response headers, trailers
// and the final status with its details. With a ticket (spend_approval_on:
// accepted) it settles the approval when the call ends.
func (h *handler) proxy(ctx context.Context, ss grpc.ServerStream, s *app.ListenerSettings, r *request, t *app.Ticket) error {
	conn, err := h.ups.conn(s)
	if err != nil {
		t.GiveBack(domain.NotSent("no upstream connection: " + err.Error()))
		h.log.Error("no upstream connection", "upstream", s.Upstream, "error", err)
		return status.Errorf(codes.Unavailable, "grpc listener: upstream %s: %v", s.Upstream, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cs, err := conn.NewStream(metadata.NewOutgoingContext(ctx, forwardMetadata(r.md)), streamDesc, r.method)
	if err != nil {
		t.GiveBack(domain.NotSent("the upstream stream did not open: " + err.Error()))
		return err
	}
	var (
		mu       sync.Mutex
		clientEr error // the client side failed (not io.EOF); it wins over the upstream's status
	)
	go func() {
		if err := pumpUp(ss, cs, r, t.Sent); err != nil {
			mu.Lock()
			clientEr = err
			mu.Unlock()
			cancel()
		}
	}()
	msgs, err := pumpDown(ss, cs)
	mu.Lock()
	if clientEr != nil {
		h.log.Info("call ended by the client side", "method", r.method, "client", clientAddr(ss.Context()), "error", clientEr)
		err = clientEr
	}
	mu.Unlock()
	// Given back only with the upstream's proof that nothing ran (spend.go);
	// a call that the client cancelled or that ran out of time may have
	// run, so it spends the approval.
	if msgs == 0 && ctx.Err() == nil {
		t.GiveBack(proof(err))
	}
	t.Spend()
	return err
}

// pumpUp relays the client's messages to the upstream, starting with the
// message the gate read (then it calls sent), and half-closes upstream
// when the client does. It returns nil when the client half-closed or the upstream ended the call
// (its status is read by pumpDown), else the client-side error.
func pumpUp(ss grpc.ServerStream, cs grpc.ClientStream, r *request, sent func()) error {
	if r.hasMsg {
		if err := cs.SendMsg(r.msg); err != nil {
			return sendErr(err)
		}
	}
	sent() // the call and the message the gate read went upstream
	if r.clientDone {
		return cs.CloseSend()
	}
	for {
		var b []byte
		if err := ss.RecvMsg(&b); err != nil {
			if errors.Is(err, io.EOF) {
				return cs.CloseSend()
			}
			return err
		}
		if err := cs.SendMsg(b); err != nil {
			return sendErr(err)
		}
	}
}

// sendErr: io.EOF from SendMsg means the upstream ended the call; its status
// comes from RecvMsg, so it is not an error here.
func sendErr(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// pumpDown relays the upstream's response headers, messages and trailers to
// the client, and returns how many messages it relayed and the upstream's
// final status (nil for OK).
func pumpDown(ss grpc.ServerStream, cs grpc.ClientStream) (int, error) {
	// Header returns nil when the upstream answered trailers-only.
	if md, _ := cs.Header(); md != nil {
		_ = ss.SendHeader(md) // a client that left shows up in RecvMsg below
	}
	msgs := 0
	for {
		var b []byte
		if err := cs.RecvMsg(&b); err != nil {
			ss.SetTrailer(cs.Trailer())
			if errors.Is(err, io.EOF) {
				return msgs, nil
			}
			return msgs, err
		}
		if err := ss.SendMsg(b); err != nil {
			return msgs, err
		}
		msgs++
	}
}
