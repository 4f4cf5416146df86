package harness

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// UpstreamKind describes one kind of server the suites run against and the
// three ways to reach one (docs/container.md, "Which upstream a suite uses"),
// tried in this order:
//
//  1. an explicit URL in the environment (URLEnv);
//  2. a testcontainers-go container, when a Docker engine answers and the
//     image (ImageEnv, else Image) is on it or can be pulled, in a test
//     binary whose TestMain is harness.Main (the container lives as long
//     as the test process);
//  3. the server this machine runs (Local); for a kind without one
//     (SQL Server), StandIn: an in-process server built for the suites,
//     reported as "no real <Name>: …" with why the real ones were not used.
//
// When none answers, the test fails naming the three.
type UpstreamKind struct {
	Name     string // "PostgreSQL", in messages
	URLEnv   string // e.g. HOOP_TEST_POSTGRES_URL
	ImageEnv string // e.g. HOOP_TEST_POSTGRES_IMAGE: an image to use instead of Image (may be pulled)
	Image    string // the image built here by scripts/test-images.sh, e.g. hoop-test/postgres:15
	// ImageHowTo says how Image gets onto the engine, in messages
	// (default: "scripts/test-images.sh builds it").
	ImageHowTo string
	// NoImage, for a kind with no Image built here, says why; a container
	// then runs only from an image named in ImageEnv.
	NoImage string
	Port    string // the server's port in the container, e.g. "5432/tcp"
	// Env is the container's environment; it also makes the official
	// image (docs/container.md) behave like Image.
	Env map[string]string
	// URL returns the URL of a server at host:port.
	URL func(hostport string) string
	// Local is the URL of this machine's server ("" when it has none).
	Local string
	// StandIn, when set, starts the stand-in used when no real server
	// answers (once per test process) and returns its URL and what it is.
	StandIn func() (url, what string, err error)
	// Ping returns nil when the server at url answers a query.
	Ping func(ctx context.Context, url string) error
}

// Upstream is the server PickUpstream chose.
type Upstream struct {
	URL     string
	Source  string // which of the three ways, in words
	StandIn bool   // the kind's StandIn, not a real server
}

var (
	standInOnce sync.Once
	pickMu      sync.Mutex
	picked      = map[string]Upstream{} // per kind, once per test process
)

// PickUpstream returns the server of kind k for this test process (the same
// one for every test in it), tried in UpstreamKind's order. It logs which
// one it used; it fails the test naming the three ways when none answers.
func PickUpstream(t testing.TB, k UpstreamKind) Upstream {
	t.Helper()
	pickMu.Lock()
	defer pickMu.Unlock()
	if u, ok := picked[k.Name]; ok && ping(k, u.URL) == nil {
		t.Logf("%s upstream: %s", k.Name, u.Source)
		return u
	}
	var tried []string
	try := func(u Upstream) bool {
		err := ping(k, u.URL)
		if err == nil {
			picked[k.Name] = u
			t.Logf("%s upstream: %s", k.Name, u.Source)
			return true
		}
		tried = append(tried, fmt.Sprintf("%s: %v", u.Source, err))
		return false
	}
	if u := os.Getenv(k.URLEnv); u != "" {
		if try(Upstream{URL: u, Source: k.URLEnv}) {
			return picked[k.Name]
		}
		// An explicit URL that does not answer is a mistake to report, not to route around.
		t.Fatalf("no %s for the conformance suite: %s", k.Name, tried[0])
	}
	if hostport, image, why := containerUpstream(t, k); why != "" {
		tried = append(tried, why)
	} else if try(Upstream{URL: k.URL(hostport), Source: fmt.Sprintf("a testcontainers-go container of %s at %s", image, hostport)}) {
		return picked[k.Name]
	}
	if k.Local != "" && try(Upstream{URL: k.Local, Source: "this machine's " + k.Name + " server (" + k.Local + ")"}) {
		return picked[k.Name]
	}
	if k.StandIn != nil {
		u, what, err := k.StandIn()
		if err == nil {
			up := Upstream{URL: u, Source: fmt.Sprintf("no real %s: %s; standing in: %s", k.Name, strings.Join(tried, "; "), what), StandIn: true}
			picked[k.Name] = up
			t.Logf("%s upstream: %s", k.Name, up.Source)
			standInOnce.Do(func() { fmt.Fprintf(os.Stderr, "%s upstream: %s\n", k.Name, up.Source) })
			return up
		}
		tried = append(tried, "the stand-in: "+err.Error())
	}
	t.Fatalf("no %s for the conformance suite; tried: %s. Set %s to a server's URL, run a Docker engine with the image %s (scripts/test-images.sh builds it; %s names another, e.g. an official one), or start this machine's server at %s",
		k.Name, strings.Join(tried, "; "), k.URLEnv, k.Image, k.ImageEnv, k.Local)
	return Upstream{}
}

func ping(k UpstreamKind, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return k.Ping(ctx, url)
}
