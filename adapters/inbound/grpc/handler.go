package grpclistener

import (
	"context"
	"log/slog"
	"net"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// handler is one listener's relay: what every session of it shares.
type handler struct {
	l   *app.Listener
	log *slog.Logger
	// dial connects to the upstream (dialUpstream; fuzz targets replace it).
	dial func(context.Context, upstreamKey) (net.Conn, error)
}

// startGate hands a call whose first message was read (or whose client
// ended it without one) to the gate on a goroutine of its own: the gate
// may wait for the held-payload budget, the Control Plane or a person.
// The call's other frames wait meanwhile; the session goes on.
func (s *session) startGate(st *stream) {
	ctx, cancel := context.WithCancel(s.ctx)
	if st.timeout > 0 {
		ctx, cancel = context.WithDeadline(s.ctx, st.start.Add(st.timeout))
	}
	st.cancel = cancel
	r := &request{method: st.fields.first(":path"), md: st.fields, clientDone: len(st.first) == 0}
	wire := st.first
	go s.gate(ctx, st, r, wire, st.fields.first("grpc-encoding"))
}

// gate decides a call an approval rule covers (run by startGate): it takes
// the first message's size from the held-payload budget, asks the gate,
// then relays the call with the message as the client sent it, or denies
// it.
func (s *session) gate(ctx context.Context, st *stream, r *request, wire []byte, encoding string) {
	var held *app.Reservation
	code, msg := codes.OK, ""
	if !r.clientDone {
		body, err := messageBody(wire, encoding, MaxHeldMessage)
		switch {
		case err != nil:
			code, msg = codes.Unimplemented, "grpc listener: "+err.Error()
			if strings.Contains(err.Error(), "over") {
				code = codes.ResourceExhausted
			}
		default:
			r.msg, r.hasMsg = body, true
			held, code, msg = s.reserve(ctx, r)
		}
	}
	defer held.Release()
	ls := s.h.l.Settings()
	var out app.Outcome
	if code == codes.OK {
		out = s.h.l.CheckWith(ctx, ls, r.statement(s.remote, ls))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.kick()
	if st.phase == phaseDone {
		if t := out.Ticket; t != nil { // the client left after the claim: nothing was sent
			go t.GiveBack(domain.NotSent("the client left before the call was sent"))
		}
		return
	}
	switch {
	case code != codes.OK:
		s.answer(st, code, msg, nil)
	case out.ClientGone && ctx.Err() == context.DeadlineExceeded:
		s.answer(st, codes.DeadlineExceeded, "grpc listener: the deadline passed while the call was held", nil)
	case !out.Forward:
		s.deny(st, out.Denial)
	case s.upErr != nil || s.u == nil:
		t := out.Ticket
		go t.GiveBack(domain.NotSent("no upstream connection"))
		s.open(st, wire) // answers UNAVAILABLE
	case uint32(len(s.byU)) >= s.u.maxStreams:
		if t := out.Ticket; t != nil {
			go t.GiveBack(domain.NotSent("the upstream takes no more concurrent calls"))
		}
		s.open(st, wire) // refused unprocessed: the client sends it again
	default:
		st.ticket = out.Ticket
		s.open(st, wire)
		if st.ticket != nil {
			st.ticket.Sent()
		}
	}
}

// reserve takes the size of r's first message from the held-payload
// budget (held.go); a code other than OK refuses the call.
func (s *session) reserve(ctx context.Context, r *request) (*app.Reservation, codes.Code, string) {
	held, err := s.h.holdFirst(ctx, r)
	if err == nil {
		return held, codes.OK, ""
	}
	st := status.Convert(err)
	return nil, st.Code(), st.Message()
}

// settle settles the approval of a relayed call before its last frame goes
// to the client (pumpC): given back with the upstream's proof that nothing
// ran (spend.go), else spent.
func (s *session) settle(st *stream) {
	s.mu.Lock()
	t := st.ticket
	var proofErr error
	give := !st.respData && !st.clientCancel
	if give {
		if code, err := strconv.Atoi(st.status); err == nil && code != 0 {
			proofErr = status.Error(codes.Code(code), st.message)
		}
	}
	s.mu.Unlock()
	if give {
		t.GiveBack(proof(proofErr))
	}
	t.Spend()
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.kick()
	st.settled = true
	if st.phase != phaseDone {
		s.pumpC(st)
	}
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

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
