package httplistener

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/hoophq/sidecar/domain/masking"
)

// maskResponse masks the body of resp, a response the reverse proxy
// (proxy.go) is about to send, by plan p (ReverseProxy.ModifyResponse). A
// masked body replaces resp.Body with a Content-Length, encoded as the
// upstream encoded it. It returns a *masking.UnreadableError when a strict
// rule refuses the body (the proxy answers 502 with it, writeWithheld),
// or the upstream's error while reading the body.
func maskResponse(p *masking.Plan, resp *http.Response) error {
	method := ""
	if resp.Request != nil {
		method = resp.Request.Method
	}
	if bodiless(resp.StatusCode, method) {
		return nil
	}
	ct, ce := resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding")
	read, err := inspect(p, resp.StatusCode, ct, ce, resp.ContentLength)
	if !read || err != nil {
		return err
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxMaskedBody+1))
	if err != nil {
		return err
	}
	if len(raw) > MaxMaskedBody {
		if err := p.Unreadable(overLimit()); err != nil {
			return err
		}
		// best_effort: what was read, then the rest, as the upstream sent it.
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(raw), resp.Body), resp.Body}
		return nil
	}
	_ = resp.Body.Close()
	out, changed, err := maskBody(p, ct, ce, raw)
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.TransferEncoding = nil
	resp.Trailer = nil
	resp.Header.Del("Trailer")
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	if changed {
		for _, k := range digestFields {
			resp.Header.Del(k)
		}
	}
	return nil
}
