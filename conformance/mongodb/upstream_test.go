package mongodb

import (
	"context"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness/ferretdb"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// upstream is the MongoDB-compatible server the suite's Sidecars forward
// to: its host:port, a direct URL (no Sidecar), and which way it was found.
type upstream struct {
	Addr   string
	URL    string
	Source string
	// SCRAM reports whether the server authenticates users with SCRAM
	// (a real MongoDB with users); embedded FerretDB does not.
	SCRAM bool
}

// containerUpstream is the container step (main_test.go sets it to the
// harness's MongoDB kind): a MongoDB container through testcontainers-go
// when a Docker engine answers and HOOP_TEST_MONGODB_IMAGE names an image
// (no MongoDB image is built here: Debian packages no MongoDB server). It
// returns ok=false, having logged why, when there is none.
var containerUpstream func(t testing.TB) (u upstream, ok bool)

var (
	ferretOnce sync.Once
	ferretUp   upstream
	ferretErr  error
)

// mongoUpstream returns the upstream, in this order (docs/mongodb-listener.md,
// "Tests"): HOOP_TEST_MONGODB_URL (host:port or mongodb://host:port/); a
// MongoDB container (containerUpstream); FerretDB v1.24.2 embedded in this
// test process (SQLite handler, one per test process); else it fails naming
// the ways. It logs which one it used.
func mongoUpstream(t testing.TB) upstream {
	t.Helper()
	if raw := os.Getenv("HOOP_TEST_MONGODB_URL"); raw != "" {
		u := upstream{URL: raw, Addr: hostPort(raw), Source: "HOOP_TEST_MONGODB_URL", SCRAM: true}
		ping(t, u)
		t.Logf("MongoDB upstream: %s (%s)", u.Source, u.Addr)
		return u
	}
	if containerUpstream != nil {
		if u, ok := containerUpstream(t); ok {
			ping(t, u)
			t.Logf("MongoDB upstream: %s (%s)", u.Source, u.Addr)
			return u
		}
	}
	ferretOnce.Do(func() { ferretUp, ferretErr = startFerretDB() })
	if ferretErr != nil {
		t.Fatalf("no MongoDB for the conformance suite: set HOOP_TEST_MONGODB_URL, run a Docker engine with a MongoDB image, "+
			"or let the suite embed FerretDB v1.24.2 (which failed: %v)", ferretErr)
	}
	t.Logf("MongoDB upstream: %s (%s): no HOOP_TEST_MONGODB_URL and no MongoDB container (the line above says why)", ferretUp.Source, ferretUp.Addr)
	return ferretUp
}

// startFerretDB runs the embedded FerretDB (conformance/harness/ferretdb).
func startFerretDB() (upstream, error) {
	addr, err := ferretdb.Start()
	if err != nil {
		return upstream{}, err
	}
	return upstream{Addr: addr, URL: "mongodb://" + addr + "/", Source: ferretdb.Source}, nil
}

// ping fails t when u does not answer a ping.
func ping(t testing.TB, u upstream) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(u.URL).SetServerSelectionTimeout(15 * time.Second))
	if err == nil {
		err = c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
		_ = c.Disconnect(ctx)
	}
	if err != nil {
		t.Fatalf("MongoDB upstream %s (%s) does not answer: %v", u.Source, u.URL, err)
	}
}

// hostPort is the first host:port of a MongoDB URL (or raw itself when it
// is already host:port).
func hostPort(raw string) string {
	s := raw
	for _, p := range []string{"mongodb://"} { // mongodb+srv is not supported here
		if len(s) > len(p) && s[:len(p)] == p {
			s = s[len(p):]
		}
	}
	if i := indexAny(s, "@"); i >= 0 {
		s = s[i+1:]
	}
	if i := indexAny(s, "/?,"); i >= 0 {
		s = s[:i]
	}
	return s
}

func indexAny(s, chars string) int {
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(chars); j++ {
			if s[i] == chars[j] {
				return i
			}
		}
	}
	return -1
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
