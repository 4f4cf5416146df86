// Package ferretdb embeds FerretDB v1.24.2 (SQLite handler) in a test
// process as the MongoDB upstream of the conformance suites that have no
// real MongoDB (docs/container.md, "Tests"). It is a package of its own so
// that only the suites that need it link FerretDB.
package ferretdb

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

// Source names the embedded server for test logs.
const Source = "FerretDB v1.24.2 embedded in the test process (SQLite handler)"

// Start runs FerretDB with its SQLite handler on a free loopback port for
// the rest of the test process (its data in a temporary folder) and returns
// its host:port once it listens.
func Start() (string, error) {
	dir, err := os.MkdirTemp("", "hoop-mongodb-ferretdb-")
	if err != nil {
		return "", err
	}
	port, err := freePort()
	if err != nil {
		return "", err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: addr},
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return "", err
	}
	go func() { _ = f.Run(context.Background()) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("FerretDB did not listen on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
