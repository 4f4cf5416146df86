package mysqlconf

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"net"
	"testing"

	gm "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/server"

	"github.com/hoophq/sidecar/internal/listenertest"
)

// standInPassword is the password of every user of the stand-in.
const standInPassword = "s3cret-sha2"

// startCachingSha2StandIn starts an in-process MySQL server speaking
// caching_sha2_password (go-mysql's server package), with RSA key exchange
// and, when tlsCfg is set, TLS; users are created with that plugin. It is a
// stand-in for MySQL 8: MariaDB has no caching_sha2_password. It answers
// every query with one row, one column: 1.
func startCachingSha2StandIn(t *testing.T, tlsCfg *tls.Config, users ...string) string {
	t.Helper()
	t.Log("caching_sha2_password upstream: an in-process go-mysql server, a STAND-IN for MySQL 8 (MariaDB has no caching_sha2_password)")
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	srv := server.NewServer("8.0.36-hoop-standin", gm.DEFAULT_COLLATION_ID, gm.AUTH_CACHING_SHA2_PASSWORD, key, tlsCfg)
	auth := server.NewInMemoryAuthenticationHandler(gm.AUTH_CACHING_SHA2_PASSWORD)
	for _, u := range users {
		if err := auth.AddUser(u, standInPassword, gm.AUTH_CACHING_SHA2_PASSWORD); err != nil {
			t.Fatal(err)
		}
	}
	return listenertest.ServeTCP(t, func(c net.Conn) {
		conn, err := srv.NewCustomizedConn(c, auth, standInHandler{})
		if err != nil {
			return
		}
		for conn.HandleCommand() == nil {
		}
	})
}

// standInHandler answers every query with 1.
type standInHandler struct{ server.EmptyHandler }

func (standInHandler) UseDB(string) error { return nil }

func (standInHandler) HandleQuery(string) (*gm.Result, error) {
	rs, err := gm.BuildSimpleTextResultset([]string{"one"}, [][]any{{1}})
	if err != nil {
		return nil, err
	}
	return gm.NewResult(rs), nil
}
