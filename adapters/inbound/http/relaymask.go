package httplistener

import (
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/hoophq/sidecar/domain/masking"
)

// maskRun is the masking of one relayed request's answer: the plan, and
// the error a strict rule withheld the answer with, for the audit line.
type maskRun struct {
	plan     *masking.Plan
	withheld error
}

// relayMasked relays the final response resp (its head read, not yet
// written) with its body masked by m.plan: a body to read (inspect) is
// read whole, up to MaxMaskedBody, masked and sent with a Content-Length;
// any other goes as the upstream framed it. A strict refusal is answered
// with 502 (writeWithheld) instead of the response. keep, fail and wrote
// are relayResponse's: wrote is set once the head goes to the client, so
// that a later failure closes the connection instead of answering 502.
func (rc *relayConn) relayMasked(up *upstreamConn, resp *responseHead, keep bool, m *maskRun,
	fail func(error) (bool, error), wrote *bool) (bool, error) {
	head := append([]byte(nil), resp.out...) // resp.out shares rc.out's array
	ct, ce := headValue(head, "Content-Type"), headValue(head, "Content-Encoding")
	length := int64(-1)
	if resp.framing == framingLength {
		length = resp.length
	}
	read, err := inspect(m.plan, resp.status, ct, ce, length)
	if err != nil {
		return rc.withhold(up, m, err, false, keep)
	}
	if !read {
		*wrote = true
		rc.out = append(append(rc.out[:0], head...), "\r\n"...)
		return rc.endMasked(up, resp, keep, fail, rc.relayBody(up, resp))
	}
	body := &upstreamBody{rc: rc, up: up, framing: resp.framing, n: length}
	if resp.framing == framingChunked {
		body.n = 0
	}
	raw, err := io.ReadAll(io.LimitReader(body, MaxMaskedBody+1))
	if err != nil {
		return fail(err)
	}
	if len(raw) > MaxMaskedBody {
		if err := m.plan.Unreadable(overLimit()); err != nil {
			return rc.withhold(up, m, err, false, keep)
		}
		*wrote = true
		rc.out = append(append(rc.out[:0], head...), "\r\n"...)
		return rc.endMasked(up, resp, keep, fail, rc.passRest(raw, body))
	}
	out, changed, err := maskBody(m.plan, ct, ce, raw)
	if err != nil {
		return rc.withhold(up, m, err, resp.reusable, keep)
	}
	drop := []string{"Content-Length", "Transfer-Encoding", "Trailer"}
	if changed {
		drop = append(drop, digestFields...)
	}
	*wrote = true
	rc.out = dropHeadFields(rc.out[:0], head, drop)
	rc.out = append(rc.out, "Content-Length: "...)
	rc.out = strconv.AppendInt(rc.out, int64(len(out)), 10)
	rc.out = append(rc.out, "\r\n\r\n"...)
	rc.out = append(rc.out, out...)
	err = nil
	if rc.flush() != nil {
		err = errClientWrite
	}
	return rc.endMasked(up, resp, keep, fail, err)
}

// endMasked ends relayMasked as relayResponse ends: fail on err, else the
// upstream connection kept only when reusable.
func (rc *relayConn) endMasked(up *upstreamConn, resp *responseHead, keep bool, fail func(error) (bool, error),
	err error) (bool, error) {
	if err != nil {
		return fail(err)
	}
	if !resp.reusable {
		up.close()
		rc.up = nil
	}
	return keep, nil
}

// withhold answers 502 with err (a strict rule's refusal) instead of the
// upstream's response. drained says the upstream's body was read to its
// end, so its connection can carry the next request.
func (rc *relayConn) withhold(up *upstreamConn, m *maskRun, err error, drained, keep bool) (bool, error) {
	m.withheld = err
	if !drained {
		up.close()
		rc.up = nil
	}
	w := newHeadWriter()
	writeWithheld(w, err)
	return rc.answer(w, &requestHead{close: !keep})
}

// passRest sends, after rc.out (the upstream's head), the body prefix
// already read and the rest of body as the upstream framed it: a best_effort
// rule lets a body over MaxMaskedBody pass unread.
func (rc *relayConn) passRest(prefix []byte, body *upstreamBody) error {
	if body.framing != framingChunked {
		rc.out = append(rc.out, prefix...)
		if err := rc.copyBody(body.up, body.n); err != nil {
			return err
		}
		if rc.flush() != nil {
			return errClientWrite
		}
		return nil
	}
	buf := make([]byte, proxyBufferSize)
	for chunk := prefix; ; {
		if len(chunk) > 0 {
			rc.out = strconv.AppendInt(rc.out, int64(len(chunk)), 16)
			rc.out = append(rc.out, "\r\n"...)
			rc.out = append(rc.out, chunk...)
			rc.out = append(rc.out, "\r\n"...)
			if rc.flush() != nil {
				return errClientWrite
			}
		}
		n, err := body.Read(buf)
		if errors.Is(err, io.EOF) {
			rc.out = append(rc.out, "0\r\n\r\n"...)
			if rc.flush() != nil {
				return errClientWrite
			}
			return nil
		}
		if err != nil {
			return err
		}
		chunk = buf[:n]
	}
}

// upstreamBody reads a response body from up as framed (framingLength: n
// bytes left; framingClose: n is -1, to the connection's end;
// framingChunked: n left in the current chunk), without its framing.
type upstreamBody struct {
	rc      *relayConn
	up      *upstreamConn
	framing bodyFraming
	n       int64
	started bool // chunked: a chunk was read (its CRLF comes next)
	done    bool
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	if b.framing == framingChunked && b.n == 0 && !b.done {
		if err := b.nextChunk(); err != nil {
			return 0, err
		}
	}
	if b.done || b.n == 0 {
		return 0, io.EOF
	}
	if err := b.rc.fillUpstream(b.up); err != nil {
		if errors.Is(err, io.EOF) {
			if b.n < 0 {
				b.done = true
				return 0, io.EOF
			}
			return 0, io.ErrUnexpectedEOF
		}
		return 0, err
	}
	k := min(b.up.br.Buffered(), len(p))
	if b.n > 0 && int64(k) > b.n {
		k = int(b.n)
	}
	k, _ = b.up.br.Read(p[:k])
	if b.n > 0 {
		b.n -= int64(k)
	}
	return k, nil
}

// nextChunk reads up to the next chunk's data: the CRLF that ends the
// last one, the chunk-size line, and for the last chunk the trailers.
func (b *upstreamBody) nextChunk() error {
	if b.started {
		line, err := b.rc.readLine(b.up)
		if err != nil {
			return err
		}
		if len(line) != 2 {
			return errBadResponse
		}
	}
	b.started = true
	line, err := b.rc.readLine(b.up)
	if err != nil {
		return err
	}
	size, err := chunkSize(line[:len(line)-2])
	if err != nil {
		return err
	}
	if size > 0 {
		b.n = size
		return nil
	}
	for { // trailer section, dropped with the chunked framing
		line, err := b.rc.readLine(b.up)
		if err != nil {
			return err
		}
		if len(line) == 2 {
			b.done = true
			return nil
		}
	}
}

// headValue returns the values of the field name in the response head h
// (status line first, CRLF lines), joined with ", "; "" when absent.
func headValue(h []byte, name string) string {
	var v []byte
	_, rest := nextLine(h)
	for len(rest) > 0 {
		var l []byte
		l, rest = nextLine(rest)
		n, val, ok := bytes.Cut(l, []byte(":"))
		if !ok || !equalFold(n, name) {
			continue
		}
		if len(v) > 0 {
			v = append(v, ", "...)
		}
		v = append(v, bytes.Trim(val, " \t")...)
	}
	return string(v)
}

// dropHeadFields appends the response head h to out without the fields
// named in drop.
func dropHeadFields(out, h []byte, drop []string) []byte {
	line, rest := nextLine(h)
	out = append(out, line...)
	out = append(out, "\r\n"...)
	for len(rest) > 0 {
		var l []byte
		l, rest = nextLine(rest)
		if len(l) == 0 {
			continue
		}
		if n, _, _ := bytes.Cut(l, []byte(":")); containsFold(drop, n) {
			continue
		}
		out = append(out, l...)
		out = append(out, "\r\n"...)
	}
	return out
}
