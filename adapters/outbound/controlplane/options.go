package controlplane

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultTimeout bounds one HTTP exchange with the Control Plane when
// Options.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// Options configures New.
type Options struct {
	// URL is the Control Plane's base URL (control_plane.url), http or https,
	// e.g. http://127.0.0.1:8080. A path prefix is kept: /api/... is appended.
	URL string
	// Token is the Sidecar token: StaticToken("…"), TokenFromEnv or
	// TokenFromFile. Required.
	Token TokenSource
	// Timeout bounds each HTTP exchange (each try of a retried call; a read
	// whose try runs out of it is not retried, a keyed claim or settle is,
	// so a hung Control Plane costs a claim up to three timeouts);
	// DefaultTimeout (5 s) when zero. The caller's context bounds the whole
	// call, retries included.
	Timeout time.Duration
	// SidecarVersion is sent as X-Hoop-Sidecar-Version (informative).
	SidecarVersion string
	// Observe, when set, is called once per call after it ends with the call
	// name (file, get, list, claim, settle, info), its duration in seconds
	// (retries included) and the error kind: "" on success, else unavailable,
	// not_found, older, unauthorized, conflict or other (see ErrKind).
	Observe func(call string, seconds float64, errKind string)
	// HTTPClient, when set, is used for every exchange. Its redirect policy
	// is kept as given; the default client does not follow redirects.
	HTTPClient *http.Client
}

// String describes o without the token (and without a password in the URL).
func (o Options) String() string {
	return fmt.Sprintf("controlplane.Options{URL:%s Token:%s Timeout:%s SidecarVersion:%q}",
		redactURL(o.URL), tokenDesc(o.Token), o.Timeout, o.SidecarVersion)
}

// GoString is String (no %#v path prints the token).
func (o Options) GoString() string { return o.String() }

// Format prints String for every verb (%v, %+v, %#v, %s, …).
func (o Options) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(o.String())) }

// LogValue is a slog group without the token.
func (o Options) LogValue() slog.Value {
	return slog.GroupValue(slog.String("url", redactURL(o.URL)), slog.String("token", tokenDesc(o.Token)),
		slog.Duration("timeout", o.Timeout), slog.String("sidecar_version", o.SidecarVersion))
}

// MarshalJSON is the fields of LogValue as a JSON object, without the token
// (Observe and HTTPClient have no JSON form and are left out).
func (o Options) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		URL            string `json:"url"`
		Token          string `json:"token"`
		Timeout        string `json:"timeout"`
		SidecarVersion string `json:"sidecar_version"`
	}{redactURL(o.URL), tokenDesc(o.Token), o.Timeout.String(), o.SidecarVersion})
}

func tokenDesc(t TokenSource) string {
	if t == nil {
		return "<none>"
	}
	if s, ok := t.(fmt.Stringer); ok {
		return s.String()
	}
	return Redacted
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	return u.Redacted()
}

// Client is the Sidecar's Control Plane client. It implements
// ports.ControlPlane and is safe for concurrent use.
type Client struct {
	base    *url.URL
	token   TokenSource
	timeout time.Duration
	version string
	observe func(string, float64, string)
	http    *http.Client
	// keysKept is whether the Control Plane keeps claim keys
	// (KeepsClaimKeys): set by Info's claim_keys and by each won keyed
	// claim, whether its answer echoed the key.
	keysKept *atomic.Bool
	// echoed is the keys of open claims whose answer echoed them
	// (EchoedClaimKey).
	echoed *keySet
}

// New checks o and returns a Client. Errors: an empty or non-http(s) URL, a
// URL with a query or fragment, or no Token. New does no network I/O (use
// Info to check the Control Plane).
func New(o Options) (*Client, error) {
	if strings.TrimSpace(o.URL) == "" {
		return nil, errors.New("control plane: no URL given")
	}
	u, err := url.Parse(strings.TrimSpace(o.URL))
	if err != nil {
		return nil, fmt.Errorf("control plane: URL %s cannot be parsed", redactURL(o.URL))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("control plane: URL %s must be http:// or https:// with a host", u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("control plane: URL %s must not carry a query or fragment", u.Redacted())
	}
	if u.User != nil {
		return nil, fmt.Errorf("control plane: URL %s must not carry user info; the Sidecar token authenticates", u.Redacted())
	}
	if o.Token == nil {
		return nil, errors.New("control plane: no Sidecar token source given")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	c := &Client{keysKept: new(atomic.Bool), echoed: &keySet{}, base: u, token: o.Token, timeout: o.Timeout, version: o.SidecarVersion,
		observe: o.Observe, http: o.HTTPClient}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.http == nil {
		c.http = &http.Client{
			Transport: http.DefaultTransport.(*http.Transport).Clone(),
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	return c, nil
}

// URL returns the Control Plane's base URL (without secrets), for logs.
func (c *Client) URL() string { return c.base.Redacted() }

// String describes c without the token.
func (c Client) String() string {
	return fmt.Sprintf("controlplane.Client{URL:%s Token:%s Timeout:%s}", c.base.Redacted(), tokenDesc(c.token), c.timeout)
}

// GoString is String.
func (c Client) GoString() string { return c.String() }

// Format prints String for every verb.
func (c Client) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// LogValue is a slog group without the token.
func (c Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("url", c.base.Redacted()), slog.String("token", tokenDesc(c.token)),
		slog.Duration("timeout", c.timeout))
}
