package mcp

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
)

// guard refuses, with 403, every request a web page could make from a
// visitor's browser (spec: "The server refuses cross-origin browser
// requests"), and DNS rebinding:
//
//   - On a loopback listen (127.0.0.0/8, ::1, localhost), Host must be
//     allowlisted: loopback names (localhost, 127.0.0.1, ::1), any IP
//     address (a rebinding attack always sends the attacker's own name), and
//     the names of mcp.allowed_hosts. Anything else, e.g.
//     Host: evil.example:8765, is refused. On any other listen (0.0.0.0, a
//     pod or host address) every Host is the agent's: the spec's own URLs,
//     http://payments-sidecar:8765/mcp and
//     http://<fullname>-mcp.<namespace>.svc:8765/mcp, name the Sidecar by
//     whatever DNS name reaches it (see useListen).
//   - Origin, when present, must be the same origin as Host (http://<Host>)
//     and that host must pass the loopback allowlist above, on every listen;
//     "null" and any other origin are refused. No origin is trusted, so a
//     rebound page (which always sends Origin on a POST) is refused on
//     every listen.
//   - http.CrossOriginProtection refuses Sec-Fetch-Site: cross-site and
//     same-site, and an Origin that does not match Host.
//
// Agents (Claude Code, Cursor, the SDKs) send no Origin and no
// Sec-Fetch-Site, so they pass.
type guard struct {
	names map[string]bool // lowercase hostnames allowed on any port
	exact map[string]bool // lowercase "host:port" allowed on that port only
	cop   *http.CrossOriginProtection
	log   *slog.Logger
	// anyHost is set by useListen when the server is bound to an address
	// that is not loopback; until then the Host check applies.
	anyHost atomic.Bool
}

// useListen tells the guard the address the server is bound to. A loopback
// address keeps the Host check (DNS rebinding reaches only a server the
// visitor's own machine serves on loopback); any other address, including
// the unspecified 0.0.0.0 and ::, answers every Host.
func (g *guard) useListen(addr net.Addr) {
	tcp, ok := addr.(*net.TCPAddr)
	g.anyHost.Store(ok && !tcp.IP.IsLoopback())
}

// CheckAllowedHosts returns an error naming the first mcp.allowed_hosts entry
// that is not a host name ("name" or "name:port"), for config validation.
// New runs the same check.
func CheckAllowedHosts(hosts []string) error {
	_, err := newGuard(hosts, nil)
	return err
}

func newGuard(allowed []string, log *slog.Logger) (*guard, error) {
	g := &guard{
		names: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true},
		exact: map[string]bool{},
		cop:   http.NewCrossOriginProtection(),
		log:   log,
	}
	for _, h := range allowed {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" || strings.ContainsAny(h, "/ \t@?#*") {
			return nil, fmt.Errorf("mcp.allowed_hosts: %q is not a host name (use name or name:port)", h)
		}
		if host, port, err := net.SplitHostPort(h); err == nil && port != "" {
			g.exact[net.JoinHostPort(host, port)] = true
			continue
		}
		g.names[strings.Trim(h, "[]")] = true
	}
	return g, nil
}

// hostAllowed reports whether a Host header value (host or host:port) is
// allowlisted.
func (g *guard) hostAllowed(hostport string) bool {
	hostport = strings.ToLower(hostport)
	host := hostport
	if h, port, err := net.SplitHostPort(hostport); err == nil {
		host = h
		if g.exact[net.JoinHostPort(h, port)] {
			return true
		}
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "" {
		return false
	}
	if g.names[host] {
		return true
	}
	_, err := netip.ParseAddr(host)
	return err == nil
}

// check returns why r is refused, or "" when it may pass.
func (g *guard) check(r *http.Request) string {
	if !g.anyHost.Load() && !g.hostAllowed(r.Host) {
		return fmt.Sprintf("Host %q is not allowed on a loopback listen (DNS rebinding; listen on a non-loopback address or add it to mcp.allowed_hosts)", r.Host)
	}
	if origin, ok := r.Header["Origin"]; ok {
		o := strings.Join(origin, ",")
		u, err := url.Parse(o)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") ||
			!strings.EqualFold(u.Host, r.Host) || !g.hostAllowed(u.Host) {
			return fmt.Sprintf("cross-origin request from Origin %q refused", o)
		}
	}
	if err := g.cop.Check(r); err != nil {
		return "cross-origin browser request refused"
	}
	return ""
}

func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := g.check(r); why != "" {
			g.log.Warn("mcp request refused", "remote", r.RemoteAddr, "reason", why,
				"sec_fetch_site", r.Header.Get("Sec-Fetch-Site"))
			w.Header().Set("Cache-Control", "no-store")
			http.Error(w, "forbidden: "+why, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
