package httplistener

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// urlParts is what the relay needs of an http upstream URL, read once per
// settings value (route.go).
type urlParts struct {
	host, addr, path, query string
}

// maxResponseHead is the largest response head the relay reads (bytes),
// as http.Transport's default MaxResponseHeaderBytes bounds it.
const maxResponseHead = 1 << 20

// errClientWrite marks a failed write to the client: nothing more can be
// said to it.
var errClientWrite = errors.New("client connection failed")

// forward sends the request rh upstream, with upHead (upstreamHead's
// bytes for it) as its head, and relays the response, masked by m when not
// nil (relaymask.go). keep says the client connection can carry another
// request.
func (rc *relayConn) forward(rh *requestHead, upHead []byte, rt *route, m *maskRun) (bool, error) {
	tp := rt.parts
	// A request that must not run twice goes only over an upstream
	// connection known to be open; an idempotent one without a body is sent
	// again on a new connection when a kept-alive one fails under it.
	retry := idempotent(rh.method) && rh.contentLength == 0
	for {
		up, err := rc.upstreamFor(tp.addr, !retry)
		if err != nil {
			rc.h.log.Warn("upstream did not answer", "upstream", rt.target.Redacted(), "method", rh.method, "error", err)
			return rc.answer(badGateway(), rh)
		}
		reused := up.used
		up.used = true
		rc.out = append(rc.out[:0], upHead...)
		err = rc.sendRequest(up, rh.contentLength)
		if err == nil {
			err = rc.fillUpstream(up)
		}
		if err != nil {
			up.close()
			rc.up = nil
			if errors.Is(err, errClientWrite) {
				return false, err
			}
			if reused && retry {
				continue
			}
			rc.h.log.Warn("upstream did not answer", "upstream", rt.target.Redacted(), "method", rh.method, "error", err)
			if rh.contentLength > 0 {
				rh.close = true // the body may be half read
			}
			return rc.answer(badGateway(), rh)
		}
		return rc.relayResponse(up, rh, m)
	}
}

// upstreamFor returns the pinned upstream connection to addr, dialling one
// when there is none, it goes elsewhere (a reload changed the upstream) or,
// with mustBeOpen, it is no longer usable.
func (rc *relayConn) upstreamFor(addr string, mustBeOpen bool) (*upstreamConn, error) {
	if up := rc.up; up != nil {
		if up.addr == addr && (!mustBeOpen || up.usable()) {
			return up, nil
		}
		up.close()
		rc.up = nil
	}
	up, err := dialUpstream(addr)
	if err != nil {
		return nil, err
	}
	rc.up = up
	return up, nil
}

// sendRequest writes rc.out (the upstream head) and the request's body of
// n bytes to up: in one write when the body is already buffered.
func (rc *relayConn) sendRequest(up *upstreamConn, n int64) error {
	if n > 0 && int64(rc.br.Buffered()) >= n {
		b, _ := rc.br.Peek(int(n))
		rc.out = append(rc.out, b...)
		_, _ = rc.br.Discard(int(n))
		n = 0
	}
	_, err := up.c.Write(rc.out)
	rc.out = rc.out[:0]
	if err != nil || n == 0 {
		return err
	}
	_, err = io.CopyN(up.c, rc.br, n)
	return err
}

// relayResponse reads the response(s) to rh from up and writes them to the
// client: any 1xx first, then the final response with its body framed as
// the upstream framed it, or masked by m when not nil.
func (rc *relayConn) relayResponse(up *upstreamConn, rh *requestHead, m *maskRun) (bool, error) {
	wrote := false
	fail := func(err error) (bool, error) {
		up.close()
		rc.up = nil
		if wrote || errors.Is(err, errClientWrite) {
			return false, err
		}
		rc.h.log.Warn("upstream answer could not be read", "method", rh.method, "error", err)
		return rc.answer(badGateway(), &requestHead{close: true})
	}
	for {
		head, err := rc.readResponseHead(up)
		if err != nil {
			return fail(err)
		}
		resp, err := up.parseResponse(head, rh.method, rc.out)
		if err != nil {
			return fail(err)
		}
		if resp.status == http.StatusSwitchingProtocols {
			return fail(errors.New("101 Switching Protocols to a request without Upgrade"))
		}
		keep := !rh.close && resp.framing != framingClose && !rc.set.draining.Load()
		if resp.status < 200 {
			keep = true // an interim answer: the final one follows
		} else if !keep {
			resp.out = append(resp.out, "Connection: close\r\n"...)
		}
		if m != nil && resp.status >= 200 && resp.framing != framingNone {
			return rc.relayMasked(up, &resp, keep, m, fail, &wrote)
		}
		rc.out = append(resp.out, "\r\n"...)
		wrote = true
		if resp.status < 200 {
			if err := rc.flush(); err != nil {
				return false, errClientWrite
			}
			continue
		}
		if err := rc.relayBody(up, &resp); err != nil {
			return fail(err)
		}
		if !resp.reusable {
			up.close()
			rc.up = nil
		}
		return keep, nil
	}
}

// relayBody relays the body of resp from up to the client as the upstream
// framed it, after rc.out (the head), and writes rc.out.
func (rc *relayConn) relayBody(up *upstreamConn, resp *responseHead) error {
	var err error
	switch resp.framing {
	case framingLength:
		err = rc.copyBody(up, resp.length)
	case framingChunked:
		err = rc.copyChunked(up)
	case framingClose:
		err = rc.copyBody(up, -1)
	}
	if err == nil && rc.flush() != nil {
		err = errClientWrite
	}
	return err
}

// readResponseHead returns the next response head of up, reading until it
// is whole (peekUpstream). A head larger than up's buffer is read line by
// line into a copy (up to maxResponseHead bytes). The head is discarded
// from up's buffer; a returned slice of the buffer is valid until the next
// read of it.
func (rc *relayConn) readResponseHead(up *upstreamConn) ([]byte, error) {
	br := up.br
	for {
		b, _ := br.Peek(br.Buffered())
		if n := responseHeadEnd(b); n > 0 {
			_, _ = br.Discard(n)
			return b[:n], nil
		}
		if len(b) == br.Size() {
			break
		}
		if err := rc.peekUpstream(up, len(b)+1); err != nil {
			return nil, err
		}
	}
	var head []byte
	for {
		line, err := rc.upstreamLine(up)
		head = append(head, line...)
		if len(head) > maxResponseHead {
			return nil, errors.New("response head too large")
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return nil, err
		}
		if n := responseHeadEnd(head); n > 0 {
			return head, nil
		}
	}
}

// upstreamLine returns the next line of up up to and including its LF,
// waiting for it as peekUpstream waits, or the whole buffer and
// bufio.ErrBufferFull when the buffer fills without an LF. The slice is
// valid until the next read of up's buffer.
func (rc *relayConn) upstreamLine(up *upstreamConn) ([]byte, error) {
	from := 0
	for {
		b, _ := up.br.Peek(up.br.Buffered())
		if i := bytes.IndexByte(b[from:], '\n'); i >= 0 {
			_, _ = up.br.Discard(from + i + 1)
			return b[:from+i+1], nil
		}
		if len(b) == up.br.Size() {
			_, _ = up.br.Discard(len(b))
			return b, bufio.ErrBufferFull
		}
		from = len(b)
		if err := rc.peekUpstream(up, len(b)+1); err != nil {
			return nil, err
		}
	}
}

// copyBody relays n body bytes (n < 0: until the upstream closes) from up
// to the client. Bytes already buffered join rc.out; rc.out is written
// before any read that waits, so a response streams as it comes.
func (rc *relayConn) copyBody(up *upstreamConn, n int64) error {
	br := up.br
	for n != 0 {
		if k := br.Buffered(); k > 0 {
			if n > 0 && int64(k) > n {
				k = int(n)
			}
			b, _ := br.Peek(k)
			rc.out = append(rc.out, b...)
			_, _ = br.Discard(k)
			n -= int64(k)
			if len(rc.out) >= proxyBufferSize {
				if err := rc.flush(); err != nil {
					return errClientWrite
				}
			}
			continue
		}
		if err := rc.flush(); err != nil {
			return errClientWrite
		}
		if err := rc.fillUpstream(up); err != nil {
			if n < 0 && errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// clientCheckEvery is how long the relay waits on the upstream before it
// looks whether the client is still connected.
const clientCheckEvery = time.Second

// fillUpstream waits until up's buffer holds bytes (peekUpstream).
func (rc *relayConn) fillUpstream(up *upstreamConn) error {
	if up.br.Buffered() > 0 {
		return nil
	}
	return rc.peekUpstream(up, 1)
}

// peekUpstream waits until up's buffer holds n bytes (n at most its size).
// About every clientCheckEvery it looks at the client's socket
// (clientGone): a client that hung up ends the wait with errClientWrite,
// and the upstream connection is closed, as net/http cancels the upstream
// request of a client that left. up's read deadline is that check's clock:
// it stays set between waits and rolls, moved only when less than half of
// clientCheckEvery is left, not at every read.
func (rc *relayConn) peekUpstream(up *upstreamConn, n int) error {
	for {
		up.rd.roll(up.c, clientCheckEvery, clientCheckEvery/2)
		_, err := up.br.Peek(n)
		if err == nil {
			return nil
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
		if rc.rd.rolling {
			// A request without a body keeps the client's idle deadline;
			// clientGone's look must not run into it.
			rc.rd.set(rc.c, time.Time{})
		}
		if clientGone(rc.c) {
			return errClientWrite
		}
	}
}

// copyChunked relays a chunked body (RFC 9112 §7.1) from up to the client
// as it is framed: each chunk-size line, its data and CRLF, the last chunk
// and the trailer section. Lines must end in CRLF.
func (rc *relayConn) copyChunked(up *upstreamConn) error {
	for {
		line, err := rc.readLine(up)
		if err != nil {
			return err
		}
		size, err := chunkSize(line[:len(line)-2])
		if err != nil {
			return err
		}
		rc.out = append(rc.out, line...)
		if size == 0 {
			for { // trailer section, up to its empty line
				line, err := rc.readLine(up)
				if err != nil {
					return err
				}
				rc.out = append(rc.out, line...)
				if len(line) == 2 {
					return nil
				}
			}
		}
		if err := rc.copyBody(up, size); err != nil {
			return err
		}
		crlf, err := rc.readLine(up)
		if err != nil {
			return err
		}
		if len(crlf) != 2 {
			return errBadResponse
		}
		rc.out = append(rc.out, crlf...)
	}
}

// readLine returns the next CRLF-terminated line of up (terminator
// included), writing rc.out to the client first when it would wait. The
// slice is valid until the next read of br.
func (rc *relayConn) readLine(up *upstreamConn) ([]byte, error) {
	if up.br.Buffered() == 0 {
		if err := rc.flush(); err != nil {
			return nil, errClientWrite
		}
	}
	line, err := rc.upstreamLine(up)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, errBadResponse
	}
	return line, nil
}

// headWriter is an http.ResponseWriter that keeps the answer to write it
// in one piece: the listener's own answers on a relayed connection
// (writeDenial, writeText).
type headWriter struct {
	hd   http.Header
	code int
	body []byte
}

func newHeadWriter() *headWriter { return &headWriter{hd: http.Header{}} }

func (w *headWriter) Header() http.Header { return w.hd }

func (w *headWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *headWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, p...)
	return len(p), nil
}

// appendTo appends the answer as HTTP/1.1 to out, with a Date and, when
// closing, Connection: close.
func (w *headWriter) appendTo(out []byte, closing bool) []byte {
	w.WriteHeader(http.StatusOK)
	if closing {
		w.hd.Set("Connection", "close")
	}
	w.hd.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	b := bytes.NewBuffer(out)
	b.WriteString("HTTP/1.1 " + strconv.Itoa(w.code) + " " + http.StatusText(w.code) + "\r\n")
	_ = w.hd.Write(b)
	b.WriteString("\r\n")
	b.Write(w.body)
	return b.Bytes()
}

// badGateway is the answer to a request the upstream did not answer.
func badGateway() *headWriter {
	w := newHeadWriter()
	writeText(w, http.StatusBadGateway, "bad gateway: the upstream did not answer")
	return w
}
