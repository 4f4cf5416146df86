package mysql

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"log/slog"
	"net"
	"sync"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/internal/drain"
)

// Protocol is the mysql listener protocol (MySQL and MariaDB): Name and
// Serve are drain.Server's; the sessions left at the drain deadline get
// ERR 1053 ER_SERVER_SHUTDOWN. One value serves any number of listeners;
// it is safe for concurrent use.
type Protocol struct {
	drain.Server[*session]
	cache   *analyzer.Cache
	threads *threads

	keyOnce sync.Once
	key     *rsa.PrivateKey
	keyDER  []byte
	keyErr  error
}

// New returns the mysql protocol, logging to log (discarded when nil).
func New(log *slog.Logger) *Protocol {
	p := &Protocol{cache: analyzer.NewCache(), threads: newThreads()}
	p.Server = drain.NewServer("mysql", log, p.startup, loginEnded)
	return p
}

// loginEnded tells why a connection ended during login (drain.Ended): a
// client that broke the protocol gets ERR 1835 ER_MALFORMED_PACKET unless
// it was answered already; one that closed is not logged.
func loginEnded(conn net.Conn, err error, log *slog.Logger) {
	var pe *wire.Error
	var done answered
	if errors.As(err, &pe) {
		log.Warn("mysql client broke the protocol during login; connection closed", "error", err)
		if !errors.As(err, &done) {
			wire.Write(conn, 0, errMalformed.With("hoop sidecar: "+pe.Msg).Encode())
		}
	} else if !wire.IsClosed(err) {
		log.Info("mysql connection ended during login", "error", err)
	}
}

// rsaKey returns the listener's RSA key for caching_sha2_password's full
// authentication of a plain-TCP client in front of a TLS upstream
// (auth.go), made once per process.
func (p *Protocol) rsaKey() (*rsa.PrivateKey, []byte, error) {
	p.keyOnce.Do(func() {
		p.key, p.keyErr = rsa.GenerateKey(rand.Reader, 2048)
		if p.keyErr == nil {
			p.keyDER, p.keyErr = x509.MarshalPKIXPublicKey(&p.key.PublicKey)
		}
	})
	return p.key, p.keyDER, p.keyErr
}
