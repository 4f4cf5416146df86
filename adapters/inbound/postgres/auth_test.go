package postgres

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hoophq/sidecar/app"
)

// userURL is a pgx URL through the listener for one of the cluster's roles.
func (f *fixture) userURL(user, extra string) string {
	host, port, _ := net.SplitHostPort(f.addr)
	return fmt.Sprintf("postgres://%s:pw-%s@%s:%s/%s?%s", user, user, host, port, f.db, extra)
}

func whoami(t *testing.T, url string) (string, error) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	var u string
	err = c.QueryRow(ctx, "SELECT current_user").Scan(&u)
	return u, err
}

// md5 and SCRAM-SHA-256 pass through to the upstream, for psql and pgx;
// a wrong password gets the upstream's own error.
func TestPasswordAuthenticationPassesThrough(t *testing.T) {
	c := startCluster(t)
	f := newFixture(t, withUpstream(c.addr, app.TLSClient{}))
	for _, u := range []string{md5User, scramUser} {
		out := f.psql("", "SELECT current_user AS who;\n", "user="+u, "password=pw-"+u, "sslmode=disable")
		if !strings.Contains(out, " "+u) {
			t.Fatalf("psql as %s:\n%s", u, out)
		}
		if who, err := whoami(t, f.userURL(u, "sslmode=disable")); err != nil || who != u {
			t.Fatalf("pgx as %s: %q %v", u, who, err)
		}
	}
	_, err := whoami(t, strings.Replace(f.userURL(scramUser, "sslmode=disable"), "pw-"+scramUser, "wrong", 1))
	pgErr(t, err, "28P01")
}

// TLS to the upstream per listener config: a hostssl-only role gets in
// only through a listener with upstream_tls; SCRAM works across it (the
// upstream's SCRAM-SHA-256-PLUS is not offered to the client).
func TestUpstreamTLS(t *testing.T) {
	c := startCluster(t)
	f := newFixture(t, withUpstream(c.addr, app.TLSClient{Enabled: true, CAFile: c.certFile, ServerName: "127.0.0.1"}))
	out := f.psql("", "SELECT ssl AS upstream_ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid();\n",
		"user="+tlsUser, "password=pw-"+tlsUser, "sslmode=disable")
	if !strings.Contains(out, "upstream_ssl") || !strings.Contains(out, " t\n") {
		t.Fatalf("psql over upstream TLS:\n%s", out)
	}
	if who, err := whoami(t, f.userURL(scramUser, "sslmode=disable")); err != nil || who != scramUser {
		t.Fatalf("pgx SCRAM over upstream TLS: %q %v", who, err)
	}

	plain := newFixture(t, withUpstream(c.addr, app.TLSClient{}))
	if _, err := whoami(t, plain.userURL(tlsUser, "sslmode=disable")); err == nil {
		t.Fatal("a hostssl role got in without upstream TLS: the TLS test proves nothing")
	}

	wrongCA := newFixture(t, withUpstream(c.addr, app.TLSClient{Enabled: true, ServerName: "127.0.0.1"}))
	if _, err := whoami(t, wrongCA.userURL(scramUser, "sslmode=disable")); err == nil {
		t.Fatal("an upstream certificate no CA vouches for was accepted")
	}
}

// TLS from the client: SSLRequest answered S when the listener has a
// certificate; direct TLS (sslnegotiation=direct) too; N without one.
func TestClientTLS(t *testing.T) {
	cert, key := writeCert(t, t.TempDir())
	f := newFixture(t, withTLS(cert, key))
	out := f.psql("", "\\conninfo\n", "sslmode=require")
	if !strings.Contains(out, "SSL connection") {
		t.Fatalf("psql sslmode=require:\n%s", out)
	}
	if _, err := whoami(t, strings.Replace(f.url(""), "sslmode=disable", "sslmode=require", 1)); err != nil {
		t.Fatalf("pgx sslmode=require: %v", err)
	}
	if _, err := whoami(t, strings.Replace(f.url(""), "sslmode=disable", "sslmode=require&sslnegotiation=direct", 1)); err != nil {
		t.Fatalf("pgx direct TLS: %v", err)
	}
	noCert := newFixture(t)
	out = noCert.psql("", "\\conninfo\n", "sslmode=prefer")
	if strings.Contains(out, "SSL connection") || !strings.Contains(out, "You are connected") {
		t.Fatalf("without a certificate the listener must answer N:\n%s", out)
	}
	if out := noCert.psql("", "SELECT 1;\n", "sslmode=require"); !strings.Contains(out, "server does not support SSL") {
		t.Fatalf("sslmode=require without a certificate:\n%s", out)
	}
}

// TLS on both sides with SCRAM: channel binding reaches the upstream only
// when the listener presents the upstream's own certificate; otherwise the
// client connects with channel_binding=disable and, if it does not, is told so.
func TestClientAndUpstreamTLSWithSCRAM(t *testing.T) {
	c := startCluster(t)
	cert, key := writeCert(t, t.TempDir())
	f := newFixture(t, withTLS(cert, key), withUpstream(c.addr, app.TLSClient{Enabled: true, CAFile: c.certFile}))
	who := "SELECT current_user AS who;\n"
	login := []string{"user=" + scramUser, "password=pw-" + scramUser, "sslmode=require"}
	out := f.psql("", who, append(login, "channel_binding=disable")...)
	if !strings.Contains(out, " "+scramUser) {
		t.Fatalf("psql TLS both sides, channel_binding=disable:\n%s", out)
	}
	out = f.psql("", who, login...)
	if !strings.Contains(out, "SCRAM channel binding cannot pass through the Sidecar") {
		t.Fatalf("psql with channel_binding=prefer was not told why:\n%s", out)
	}

	// The listener with the upstream's own certificate: SCRAM-SHA-256-PLUS passes.
	same := newFixture(t, withTLS(c.certFile, c.certFile[:len(c.certFile)-len("crt")]+"key"),
		withUpstream(c.addr, app.TLSClient{Enabled: true, CAFile: c.certFile}))
	out = same.psql("", who, append(login, "channel_binding=require")...)
	if !strings.Contains(out, " "+scramUser) {
		t.Fatalf("psql channel_binding=require with the upstream's certificate:\n%s", out)
	}
}
