package httplistener

import (
	"fmt"
	"strings"

	"github.com/hoophq/sidecar/app"
)

// methods are the actions this listener's analyzer reports: the request
// method (RFC 9110 section 9, PATCH from RFC 5789, and the WebDAV methods of
// RFC 4918), upper case.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
	"PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK"}

// CheckAction implements app.ActionChecker: a rule's action on an http
// listener must be one of the methods above (any case).
func (p *Protocol) CheckAction(action string) error {
	for _, m := range methods {
		if strings.EqualFold(m, action) {
			return nil
		}
	}
	return fmt.Errorf("%q is not an HTTP method this listener sees (%s)", action, strings.Join(methods, ", "))
}

// CheckUpstream implements app.UpstreamChecker with the same reading the
// proxy uses: an http:// or https:// URL with a host, or a bare host:port.
func (p *Protocol) CheckUpstream(upstream string) error {
	_, err := upstreamURL(&app.ListenerSettings{Upstream: upstream})
	return err
}
