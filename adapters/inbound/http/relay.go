package httplistener

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// The relay serves plain HTTP/1.1 client connections itself: it reads each
// request head (head.go), decides it with the gate, and forwards the head
// and the body over an upstream connection pinned to the client connection
// (upstream.go), reading the response only for its framing (response.go).
// It handles the requests that are plain to forward: origin-form, no
// Transfer-Encoding, Upgrade or Expect, not under /.well-known/hoop/, not
// covered by an approval rule (their body is part of the statement), an
// http:// upstream. At the first request that is not, the connection goes
// to net/http's server (handoff.go, handler.go, proxy.go) with the bytes read
// so far, and stays there: every other behaviour of the listener is
// net/http's, as before.

// Timeouts of a relayed client connection, as the http.Server's (protocol.go).
const (
	relayIdleTimeout = 5 * time.Minute
	relayHeadTimeout = time.Minute
)

// idleSlack is how far the client's idle deadline may run down before the
// relay moves it (readDeadline.roll): an idle connection times out up to
// idleSlack early.
const idleSlack = time.Second

// Client connection states for draining (relaySet).
const (
	connIdle int32 = iota
	connActive
	connClosed
)

// relaySet is the listener's relayed client connections, for draining.
type relaySet struct {
	mu       sync.Mutex
	conns    map[*relayConn]struct{}
	draining atomic.Bool
}

func (s *relaySet) add(rc *relayConn) {
	s.mu.Lock()
	s.conns[rc] = struct{}{}
	s.mu.Unlock()
}

func (s *relaySet) remove(rc *relayConn) {
	s.mu.Lock()
	delete(s.conns, rc)
	s.mu.Unlock()
}

// len returns how many relayed connections are open.
func (s *relaySet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// drain closes the idle connections now; a connection with a request in
// flight closes once it is answered (with Connection: close).
func (s *relaySet) drain() {
	s.draining.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	for rc := range s.conns {
		if rc.state.CompareAndSwap(connIdle, connClosed) {
			_ = rc.c.Close()
		}
	}
}

// closeAll ends every relayed connection (the drain deadline passed).
func (s *relaySet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for rc := range s.conns {
		rc.state.Store(connClosed)
		_ = rc.c.Close()
	}
}

// relayConn is one relayed client connection.
type relayConn struct {
	h     *handler
	set   *relaySet
	hl    *handoffListener
	c     net.Conn
	br    *bufio.Reader
	state atomic.Int32
	// out collects bytes for the next write (upstream head, response head
	// and body bytes that arrived together).
	out []byte
	up  *upstreamConn
	// served counts the requests answered on the connection.
	served int64
	// remote is the client's address, read once per connection.
	remote string
	// last is the last request head decided on the connection.
	last *decided
	// rd is the client's read deadline: the idle one rolls (idleSlack).
	rd readDeadline
}

// errHandoff says the relay leaves the connection to net/http.
var errHandoff = errors.New("handoff")

// serveRelay serves client connection c until it closes or is handed off.
func (h *handler) serveRelay(c net.Conn, set *relaySet, hl *handoffListener) {
	rc := &relayConn{h: h, set: set, hl: hl, c: c, br: bufio.NewReaderSize(c, 4<<10), remote: c.RemoteAddr().String()}
	set.add(rc)
	err := rc.loop()
	if rc.up != nil {
		rc.up.close()
	}
	set.remove(rc)
	if errors.Is(err, errHandoff) && rc.state.Load() != connClosed {
		pre, _ := rc.br.Peek(rc.br.Buffered())
		_ = c.SetReadDeadline(time.Time{})
		hl.give(&handoffConn{Conn: c, pre: append([]byte(nil), pre...), served: rc.served})
		return
	}
	_ = c.Close()
}

// loop relays requests until the connection ends (nil or an error) or
// must be handed off (errHandoff).
func (rc *relayConn) loop() error {
	for {
		rc.state.Store(connIdle)
		if rc.set.draining.Load() {
			return nil
		}
		rc.rd.roll(rc.c, relayIdleTimeout, idleSlack)
		if _, err := rc.br.Peek(1); err != nil {
			return err
		}
		if !rc.state.CompareAndSwap(connIdle, connActive) {
			return net.ErrClosed
		}
		n, err := rc.readHead()
		if err != nil {
			return err
		}
		keep, err := rc.serveRequest(n)
		if err != nil || !keep {
			return err
		}
		if cap(rc.out) > 64<<10 {
			rc.out = nil // a large answer's buffer is not kept for an idle connection
		}
	}
}

// readHead waits until the client's buffer holds a whole request head and
// returns its length. It returns errHandoff for a head the relay leaves to
// net/http: a bare LF, or a head larger than the buffer.
func (rc *relayConn) readHead() (int, error) {
	deadline := false
	for {
		b, _ := rc.br.Peek(rc.br.Buffered())
		n, bad := headEnd(b)
		switch {
		case bad || n == 0 && len(b) == rc.br.Size():
			return 0, errHandoff
		case n > 0:
			return n, nil
		}
		if !deadline {
			rc.rd.set(rc.c, time.Now().Add(relayHeadTimeout))
			deadline = true
		}
		if _, err := rc.br.Peek(len(b) + 1); err != nil {
			return 0, err
		}
	}
}

// decided is a request head read and decided up to the gate: everything
// that depends only on the head's bytes and the settings value. A
// connection keeps the last one, so a client that repeats a request (a
// poll, a health check, a load test) is not read and analysed again.
type decided struct {
	head string
	s    *app.ListenerSettings
	rh   requestHead
	r    *http.Request
	rt   *route
	an   domain.Analysis
	ev   domain.Evaluation
	st   app.Statement
	// upHead is the head sent upstream (upstreamHead): it depends only on
	// the head, the client's address and the route, so it is built once.
	upHead []byte
	reason error // errHandoff when the relay leaves the request to net/http
}

// decide reads the head h with settings s: the statement for the gate, or
// reason errHandoff.
func (rc *relayConn) decide(h string, s *app.ListenerSettings) *decided {
	d := &decided{head: h, s: s, reason: errHandoff}
	var ok bool
	if d.rh, ok = parseRequestHead(h); !ok {
		return d
	}
	d.rt = rc.h.routes.get(s)
	if d.rt.urlErr != nil || d.rt.parts == nil {
		return d
	}
	if d.r, ok = d.rh.request(rc.remote, s.IdentityKeys); !ok {
		return d
	}
	if res, _ := reserve(d.r, d.rt.target.EscapedPath()); res != notReserved {
		return d
	}
	d.an = analyze(d.r)
	d.ev = app.Evaluate(s, d.an)
	if d.ev.Verdict == domain.VerdictApproval {
		return d // the body is part of the statement: net/http reads it (held.go)
	}
	d.st = app.Statement{
		IdentityValues: app.IdentityValues(d.r.Header.Values, s.IdentityKeys),
		Render:         func() string { return display(d.r, nil) },
		Analysis:       d.an,
		ReturnMode:     app.WantsReturnModeHeader(d.r.Header.Values),
		Client:         rc.remote,
		Evaluation:     &d.ev,
	}
	d.upHead = upstreamHead(nil, &d.rh, d.r, d.rt.parts)
	d.reason = nil
	return d
}

// serveRequest decides and answers the request whose head is the first n
// buffered bytes. keep says the connection can carry another request.
func (rc *relayConn) serveRequest(n int) (keep bool, err error) {
	b, _ := rc.br.Peek(n)
	s := rc.h.l.Settings()
	d := rc.last
	if d == nil || d.s != s || d.head != string(b) || d.rt != rc.h.routes.get(s) {
		d = rc.decide(string(b), s)
		rc.last = d
	}
	if d.reason != nil {
		return false, d.reason
	}
	_, _ = rc.br.Discard(n)
	rc.served++
	rh := d.rh // a copy: forward may mark it closing
	out := rc.h.l.CheckWith(context.Background(), s, d.st)
	if rh.contentLength > 0 || !rc.rd.rolling {
		// The body is read with no deadline, and the head's deadline
		// (readHead) ends with the head. A request without a body reads
		// nothing more of the client: the idle deadline can stay.
		rc.rd.set(rc.c, time.Time{})
	}
	if !out.Forward {
		den := out.Denial
		if den == nil {
			den = &domain.Denial{Kind: domain.DeniedByPolicy, Message: "statement denied"}
		}
		w := newHeadWriter()
		writeDenial(w, den)
		return rc.answer(w, &rh)
	}
	if s.Masking == nil {
		return rc.forward(&rh, d.upHead, d.rt, nil)
	}
	plan := app.MaskPlan(s, &d.st)
	if plan == nil { // no rule applies to this statement: relayed as without masking
		return rc.forward(&rh, d.upHead, d.rt, nil)
	}
	m := &maskRun{plan: plan}
	keep, err = rc.forward(&rh, d.upHead, d.rt, m)
	rc.h.l.Masked(s, rc.remote, "", m.plan, m.withheld)
	return keep, err
}

// answer writes the listener's own answer w (a denial, a 502) after
// skipping the request's body, and says whether the connection goes on.
func (rc *relayConn) answer(w *headWriter, rh *requestHead) (bool, error) {
	keep := !rh.close && !rc.set.draining.Load() && w.hd.Get("Connection") != "close"
	if rh.contentLength > 0 {
		// The body is dropped unread, as net/http does for a small one; a
		// large one is not waited for: the connection closes after the answer.
		if rh.contentLength > 256<<10 {
			keep = false
		} else {
			rc.rd.set(rc.c, time.Now().Add(rc.h.l.Limits().BodyReadTimeout))
			if _, err := rc.br.Discard(int(rh.contentLength)); err != nil {
				return false, err
			}
			rc.rd.set(rc.c, time.Time{})
		}
	}
	rc.out = w.appendTo(rc.out[:0], !keep)
	if err := rc.flush(); err != nil {
		return false, err
	}
	return keep, nil
}

// flush writes out to the client.
func (rc *relayConn) flush() error {
	if len(rc.out) == 0 {
		return nil
	}
	_, err := rc.c.Write(rc.out)
	rc.out = rc.out[:0]
	return err
}

// idempotent reports whether a request with method m can be sent again
// after a kept-alive upstream connection failed under it (RFC 9110 §9.2.2).
func idempotent(m string) bool {
	switch m {
	case "GET", "HEAD", "OPTIONS", "TRACE":
		return true
	}
	return false
}

// upstreamHead appends the head sent upstream for rh (r is its parsed
// form) to out: the method, the upstream URL's path joined with the path as
// the proxy has always sent it, the raw query byte for byte, the upstream's
// Host, the client's fields without the hop-by-hop ones, the client's own
// X-Forwarded-* and Forwarded, X-Hoop-Approval and pathOverrideHeaders,
// then fresh X-Forwarded-For, X-Forwarded-Host and X-Forwarded-Proto (what
// httputil.ReverseProxy with SetXForwarded sends).
func upstreamHead(out []byte, rh *requestHead, r *http.Request, target *urlParts) []byte {
	out = append(out, rh.method...)
	out = append(out, ' ')
	p := r.URL.EscapedPath()
	if target.path != "" {
		p = joinPath(target.path, p)
	}
	out = append(out, p...)
	q := r.URL.RawQuery
	switch {
	case target.query == "":
	case q == "":
		q = target.query
	default:
		q = target.query + "&" + q
	}
	if q != "" || r.URL.ForceQuery {
		out = append(out, '?')
		out = append(out, q...)
	}
	out = append(out, " HTTP/1.1\r\nHost: "...)
	out = append(out, target.host...)
	out = append(out, "\r\n"...)
	for _, f := range rh.fields {
		if dropRequestField(f.name, rh.connTokens) {
			if strings.EqualFold(f.name, "Te") && fieldHasToken(f.value, "trailers") {
				out = append(out, "Te: trailers\r\n"...)
			}
			continue
		}
		out = append(out, f.name...)
		out = append(out, ": "...)
		out = append(out, f.value...)
		out = append(out, "\r\n"...)
	}
	if ip, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		out = append(out, "X-Forwarded-For: "...)
		out = append(out, ip...)
		out = append(out, "\r\n"...)
	}
	out = append(out, "X-Forwarded-Host: "...)
	out = append(out, rh.host...)
	out = append(out, "\r\nX-Forwarded-Proto: http\r\n\r\n"...)
	return out
}

// droppedRequestFields are the client's fields never sent upstream:
// hop-by-hop ones (RFC 9110 §7.6.1), the forwarding fields the proxy sets
// itself, Host (the upstream's is sent), the approval mode header and
// pathOverrideHeaders.
var droppedRequestFields = append([]string{"Host", "Connection", "Proxy-Connection", "Keep-Alive",
	"Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
	"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", domain.Names.HeaderApprovalMode},
	pathOverrideHeaders...)

// dropRequestField reports whether the client's field name stays out of
// the upstream request (droppedRequestFields, and the fields the client's
// Connection names).
func dropRequestField(name string, connTokens []string) bool {
	for _, d := range droppedRequestFields {
		if strings.EqualFold(name, d) {
			return true
		}
	}
	for _, t := range connTokens {
		if strings.EqualFold(name, t) {
			return true
		}
	}
	return false
}

// fieldHasToken reports whether the comma-separated value v holds token t.
func fieldHasToken(v, t string) bool {
	for p := range strings.SplitSeq(v, ",") {
		if strings.EqualFold(strings.TrimSpace(p), t) {
			return true
		}
	}
	return false
}
