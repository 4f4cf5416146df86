package httplistener

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hoophq/sidecar/app"
)

// smallBody is the size up to which a held body of known length is read
// without taking from the held-payload budget.
const smallBody = 64 << 10

// holdBody reads the body of a request that an approval rule covers, within
// the limits of docs/config.md "limits": the body's length (MaxHeldBody when
// it is chunked, given back down to its real length once read) is taken from
// the process-wide held-payload budget first, and the read must end within
// limits.body_read_timeout. On failure it has answered the client (503 when
// the budget is full, 413 when the body is too large, 408 when the read
// timed out, 400 otherwise) and ok is false. The caller releases the
// reservation once the request is forwarded or denied.
func (h *handler) holdBody(w http.ResponseWriter, r *http.Request) (body []byte, held *app.Reservation, ok bool) {
	if r.ContentLength > MaxHeldBody {
		writeText(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"request body too large: a request that needs human approval may carry at most %d bytes", MaxHeldBody))
		return nil, nil, false
	}
	want := r.ContentLength
	if want < 0 {
		want = MaxHeldBody
	}
	if want > smallBody {
		var err error
		if held, err = h.l.Held().Reserve(r.Context(), want); err != nil {
			var be *app.BudgetError
			if !errors.As(err, &be) || r.Context().Err() != nil {
				return nil, nil, false
			}
			h.log.Warn("request refused: the held-payload budget is full", "client", r.RemoteAddr, "bytes", want, "budget", be.Size)
			h.discardBody(w, r)
			code := http.StatusServiceUnavailable
			if be.N > be.Size {
				code = http.StatusRequestEntityTooLarge
			} else {
				w.Header().Set("Retry-After", "1")
			}
			writeText(w, code, be.Error())
			return nil, nil, false
		}
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.l.Limits().BodyReadTimeout))
	body, err := readHeldBody(r)
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		held.Release()
		switch {
		case errors.Is(err, errBodyTooLarge):
			writeText(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(
				"request body too large: a request that needs human approval may carry at most %d bytes", MaxHeldBody))
		case errors.Is(err, os.ErrDeadlineExceeded):
			h.log.Info("the body of a request that needs approval was not sent in time", "client", r.RemoteAddr,
				"timeout", h.l.Limits().BodyReadTimeout)
			w.Header().Set("Connection", "close")
			writeText(w, http.StatusRequestTimeout, "request timeout: the body was not sent within "+
				strconv.Quote(h.l.Limits().BodyReadTimeout.String())+" (limits.body_read_timeout)")
		default:
			h.log.Info("could not read the body of a request that needs approval", "client", r.RemoteAddr, "error", err)
			writeText(w, http.StatusBadRequest, "bad request: the body could not be read")
		}
		return nil, nil, false
	}
	held.Shrink(int64(len(body)))
	return body, held, true
}

// discardBody reads and drops what is left of r's body (at most
// MaxHeldBody bytes, within limits.body_read_timeout) before a refusal is
// written, so that a client still sending it reads the refusal instead of a
// connection reset. Nothing of it is kept. A client that waits for
// 100 Continue is not asked for its body.
func (h *handler) discardBody(w http.ResponseWriter, r *http.Request) {
	if strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		// The client waits for 100 Continue before sending the body: it gets
		// the refusal instead, and the connection closes unread.
		w.Header().Set("Connection", "close")
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.l.Limits().BodyReadTimeout))
	n, _ := io.Copy(io.Discard, io.LimitReader(r.Body, MaxHeldBody+1))
	_ = rc.SetReadDeadline(time.Time{})
	if n > MaxHeldBody {
		w.Header().Set("Connection", "close")
	}
}
