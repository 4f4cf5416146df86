package mongodb

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/hoophq/sidecar/internal/testcert"
)

// TLS on both sides: the Go driver connects with tls=true to a listener
// with a certificate (tls:), and the listener connects with TLS to an
// upstream that speaks only TLS (upstream_tls:, verified against its CA):
// a FerretDB started for this test with a TLS listener. Finds run and a
// held delete is denied with the spec's text, over TLS both ways.
func TestTLSBothSides(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	cert, key := testcert.Write(t, dir, "localhost")
	upAddr := ferretTLS(t, cert, key)
	addr, _ := e.sidecar(listenerOpts{upstream: upAddr, extra: fmt.Sprintf(
		"    tls: {cert_file: %s, key_file: %s}\n    upstream_tls: {enabled: true, ca_file: %s, server_name: localhost}\n", cert, key, cert)})
	ctx := context.Background()
	coll := e.client(addr, returnApp, url.Values{"tls": {"true"}, "tlsCAFile": {cert}}).Database(e.db).Collection("t")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatalf("insert over TLS both ways: %v", err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("count over TLS: %d %v", n, err)
	}
	_, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 1}})
	heldID(t, err)

	// A plain-TCP client cannot talk to the TLS listener.
	plain := e.client(addr, returnApp, url.Values{"serverSelectionTimeoutMS": {"2000"}}).Database(e.db).Collection("t")
	if _, err := plain.CountDocuments(ctx, bson.D{}); err == nil {
		t.Fatal("a client without TLS was served by a listener with tls:")
	}
}

// ferretTLS starts a FerretDB for this test that listens with TLS only,
// and returns its address.
func ferretTLS(t *testing.T, cert, key string) string {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TLS: addr, TLSCertFile: cert, TLSKeyFile: key},
		Handler:  "sqlite", SQLiteURL: "file:" + t.TempDir() + "/",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = f.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if i > 300 {
			t.Fatalf("FerretDB with TLS did not listen on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("upstream for this test: FerretDB v1.24.2 embedded with a TLS listener (%s)", addr)
	return addr
}
