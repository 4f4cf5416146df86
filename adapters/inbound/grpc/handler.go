package grpclistener

import (
	"errors"
	"io"
	"log/slog"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/app"
)

// handler serves every call of one listener (grpc.UnknownServiceHandler: the
// listener registers no service of its own, so every method lands here).
type handler struct {
	l   *app.Listener
	log *slog.Logger
	ups *upstreams
}

// handle gates one call, then relays it to the upstream or denies it.
//
// The statement is the full method name plus the first request message. The
// listener has no descriptors, so every call looks like a bidirectional
// stream to it; it reads the first message only when an approval rule covers
// the method (other calls stream through unread). For unary and
// server-streaming calls the first message is the whole request. For
// client-streaming and bidirectional calls the approval covers the method
// and the first message; later messages of an approved call are relayed
// unexamined (docs/grpc-listener.md, "What is approved").
func (h *handler) handle(_ any, ss grpc.ServerStream) error {
	ctx := ss.Context()
	method, ok := grpc.MethodFromServerStream(ss)
	if !ok {
		return status.Error(codes.Internal, "grpc listener: the call has no method name")
	}
	if !wellFormed(method) {
		h.log.Warn("call refused: malformed method name", "method", method, "client", clientAddr(ctx))
		return status.Errorf(codes.Unimplemented, "grpc listener: malformed method name %q: want /package.Service/Method", method)
	}
	s := h.l.Settings()
	md, _ := metadata.FromIncomingContext(ctx)
	r := &request{method: method, md: md}
	if app.NeedsPayload(s, analysis(method)) {
		held, err := h.holdFirst(ctx, ss, r)
		if err != nil {
			h.log.Info("call ended before its first message was held", "method", method, "error", err)
			return err
		}
		defer held.Release()
	}
	out := h.l.CheckWith(ctx, s, r.statement(ctx, s))
	if !out.Forward {
		d := out.Denial
		ss.SetTrailer(denialTrailer(d))
		h.log.Info("call denied", "method", method, "denied", d.DeniedValue(), "rule", d.Rule,
			"approval_id", d.ApprovalID, "status", string(d.Status), "client", clientAddr(ctx))
		return denialStatus(d).Err()
	}
	return h.proxy(ctx, ss, s, r, out.Ticket)
}

// wellFormed reports whether method is /service/method with no other
// path syntax. Rules match the :path as sent, but servers built on HTTP
// routers (tonic, grpc-dotnet, many proxies) route by the path without its
// query, some decode %XX: "/pkg.Svc/Delete?x" or "/pkg.Svc/%44elete" would
// reach Delete without matching a rule on it.
func wellFormed(method string) bool {
	svc, name, ok := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	if !ok || !strings.HasPrefix(method, "/") || svc == "" || name == "" || strings.Contains(name, "/") {
		return false
	}
	for _, r := range method {
		if r <= ' ' || r == 0x7f || r == '%' || r == '?' || r == '#' || r == '\\' {
			return false
		}
	}
	return true
}

// readFirst reads the call's first request message into r. A client that
// half-closes without sending one leaves r.hasMsg false and r.clientDone
// true. Any other error (the client went away, a message over
// MaxMessageBytes) is returned as the call's status.
func (r *request) readFirst(ss grpc.ServerStream) error {
	var b []byte
	err := ss.RecvMsg(&b)
	switch {
	case errors.Is(err, io.EOF):
		r.clientDone = true
		return nil
	case err != nil:
		return err
	}
	r.msg, r.hasMsg = b, true
	return nil
}
