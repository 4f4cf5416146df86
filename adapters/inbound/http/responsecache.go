package httplistener

import "bytes"

// maxRememberedHead is the largest response head (bytes) an upstream
// connection remembers parsed.
const maxRememberedHead = 2 << 10

// lastResponse is the last response head parsed on an upstream connection:
// its bytes as the upstream sent them, whether it answered a HEAD request,
// and what parseResponseHead read of it (out holding its own copy).
type lastResponse struct {
	head   []byte
	isHEAD bool
	resp   responseHead
	ok     bool
}

// parseResponse is parseResponseHead(h, method, out) for a head that
// upstream connection u sent: a head byte for byte equal to the last one
// (an upstream answering a repeated request changes only its Date, once a
// second) to a request of the same kind (HEAD or not) is copied to out
// from the last reading instead of being read again.
func (u *upstreamConn) parseResponse(h []byte, method string, out []byte) (responseHead, error) {
	isHEAD := method == "HEAD"
	l := &u.last
	if l.ok && l.isHEAD == isHEAD && bytes.Equal(l.head, h) {
		r := l.resp
		r.out = append(out[:0], l.resp.out...)
		return r, nil
	}
	r, err := parseResponseHead(h, method, out)
	if err != nil || len(h) > maxRememberedHead {
		l.ok = false
		return r, err
	}
	l.head = append(l.head[:0], h...)
	saved := append(l.resp.out[:0], r.out...)
	l.resp = r
	l.resp.out = saved
	l.isHEAD, l.ok = isHEAD, true
	return r, nil
}
