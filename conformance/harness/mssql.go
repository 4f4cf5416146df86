package harness

import (
	"context"
	"database/sql"
	"net/url"
	"sync"
	"testing"

	_ "github.com/microsoft/go-mssqldb" // database/sql driver "sqlserver"

	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// MSSQLPassword is the password of the sa login of the SQL Server
// container and of the stand-in (SQL Server's policy wants three
// character classes and 8 characters).
const MSSQLPassword = "Hoop-Conf0rmance!"

// MSSQL is the SQL Server kind of PickUpstream (docs/container.md,
// "Tests"): HOOP_TEST_MSSQL_URL (sqlserver://user:password@host:port);
// else a container of HOOP_TEST_MSSQL_IMAGE or
// mcr.microsoft.com/mssql/server:2022-latest when it is already on the
// Docker engine (the default image is never pulled; a named one may be);
// else, this machine having no SQL Server, the stand-in: tdstest.Mini in
// this test process, reported as "no real SQL Server: …". It pings with
// go-mssqldb (encrypt=disable).
var MSSQL = UpstreamKind{
	Name:       "SQL Server",
	URLEnv:     "HOOP_TEST_MSSQL_URL",
	ImageEnv:   "HOOP_TEST_MSSQL_IMAGE",
	Image:      "mcr.microsoft.com/mssql/server:2022-latest",
	Port:       "1433/tcp",
	ImageHowTo: "it comes from Microsoft's registry: docker pull it where one answers, or name another with HOOP_TEST_MSSQL_IMAGE",
	Env:        map[string]string{"ACCEPT_EULA": "Y", "MSSQL_SA_PASSWORD": MSSQLPassword, "MSSQL_PID": "Developer"},
	URL:        saURL,
	StandIn:    startMSSQLStandIn,
	Ping: func(ctx context.Context, u string) error {
		db, err := sql.Open("sqlserver", MSSQLDSN(u, "encrypt=disable"))
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	},
}

var (
	standInMu   sync.Mutex
	standIn     *tdstest.Mini
	standInAddr string
)

func startMSSQLStandIn() (string, string, error) {
	standInMu.Lock()
	defer standInMu.Unlock()
	if standIn == nil {
		m := &tdstest.Mini{Users: map[string]string{"sa": MSSQLPassword}, ServerName: "hoop-standin"}
		addr, err := m.Listen("127.0.0.1:0")
		if err != nil {
			return "", "", err
		}
		standIn = m
		standInAddr = addr
	}
	return saURL(standInAddr), "the in-process TDS upstream tdstest.Mini at " + standInAddr +
		" (login check, USE, transactions, a pattern-matched table store, sp_executesql/sp_prepare, WAITFOR with Attention; not a SQL engine)", nil
}

func saURL(hostport string) string {
	return (&url.URL{Scheme: "sqlserver", User: url.UserPassword("sa", MSSQLPassword), Host: hostport}).String()
}

// MSSQLUpstream returns the SQL Server the suite runs against, picked by
// PickUpstream (MSSQL says the order), and the stand-in when that is what
// was picked (nil for a real server).
func MSSQLUpstream(t testing.TB) (Upstream, *tdstest.Mini) {
	t.Helper()
	u := PickUpstream(t, MSSQL)
	if !u.StandIn {
		return u, nil
	}
	standInMu.Lock()
	defer standInMu.Unlock()
	return u, standIn
}

// MSSQLDSN returns the go-mssqldb DSN of the server at u with extra query
// parameters (e.g. "encrypt=disable&database=x") added.
func MSSQLDSN(u, extra string) string {
	p, err := url.Parse(u)
	if err != nil || extra == "" {
		return u
	}
	q := p.Query()
	more, _ := url.ParseQuery(extra)
	for k, v := range more {
		q[k] = v
	}
	p.RawQuery = q.Encode()
	return p.String()
}
