package tdstest_test

import (
	"crypto/tls"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
	"github.com/hoophq/sidecar/internal/tds/tdstls"
	"github.com/hoophq/sidecar/internal/testcert"
)

// TestFreeTDSEncryption runs FreeTDS tsql with each value of its
// freetds.conf `encryption` setting (TDS 7.4) against the server in each
// encryption setting. FreeTDS sends ENCRYPT_NOT_SUP for "off", ENCRYPT_OFF
// for "request" and ENCRYPT_ON for "require"; with "ca file" it verifies
// the certificate. FreeTDS 1.3 (Debian bookworm/trixie) has no TDS 8.0:
// "encryption = strict" is refused by its configuration parser, which the
// strict case reports and tolerates; a FreeTDS that accepts it is held to
// the StrictTLS outcome.
func TestFreeTDSEncryption(t *testing.T) {
	tsql, err := exec.LookPath("tsql")
	if err != nil {
		t.Skip("FreeTDS tsql is not installed (make deps installs freetds-bin); this client is not covered")
	}
	dir := t.TempDir()
	cert, certFile := loadCert(t, dir, "localhost")
	otherCA, _ := testcert.Write(t, dir, "other")
	cases := []struct {
		encryption string
		ca         string
		server     tdstls.Setting
		want       tdstls.Outcome
		fails      bool
	}{
		{"off", "", tdstls.NotSupported, tdstls.Plain, false},
		{"off", "", tdstls.Off, tdstls.Plain, false},
		{"off", "", tdstls.Required, tdstls.Full, false}, // the server insists; FreeTDS follows
		{"request", "", tdstls.NotSupported, tdstls.Plain, false},
		{"request", certFile, tdstls.Off, tdstls.LoginOnly, false},
		{"request", certFile, tdstls.On, tdstls.Full, false},
		{"require", "", tdstls.NotSupported, 0, true}, // closed, never NOT_SUP
		{"require", certFile, tdstls.Off, tdstls.Full, false},
		{"require", "", tdstls.On, tdstls.Full, false}, // no ca file: FreeTDS does not verify
		{"require", certFile, tdstls.Required, tdstls.Full, false},
		{"require", otherCA, tdstls.Off, 0, true},     // certificate not trusted
		{"require", certFile, tdstls.Strict, 0, true}, // TDS 7.x refused by a strict server
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s/%v", c.encryption, c.server)
		if c.ca == otherCA {
			name += "/untrusted"
		}
		t.Run(name, func(t *testing.T) {
			srv, out, err := runTSQL(t, tsql, dir, c.server, cert, fmt.Sprintf("encryption = %s\n\tca file = %s", c.encryption, c.ca))
			if c.fails {
				if err == nil || strings.Contains(out, "42") {
					t.Fatalf("tsql succeeded:\n%s", out)
				}
				for _, o := range srv.Outcomes() {
					if o == tdstls.Plain {
						t.Fatalf("a plaintext session was negotiated")
					}
				}
				return
			}
			if err != nil || !strings.Contains(out, "42") {
				t.Fatalf("tsql: %v\n%s", err, out)
			}
			if got := srv.Outcomes(); len(got) != 1 || got[0] != c.want {
				t.Fatalf("outcomes %v, want [%v]", got, c.want)
			}
		})
	}
	t.Run("strict", func(t *testing.T) {
		srv, out, err := runTSQL(t, tsql, dir, tdstls.Strict, cert, "encryption = strict\n\tca file = "+certFile)
		if strings.Contains(out, "Local configuration error") {
			t.Logf("this FreeTDS has no TDS 8.0 strict encryption (encryption = strict refused): %s", strings.TrimSpace(out))
			return
		}
		if err != nil || !strings.Contains(out, "42") {
			t.Fatalf("tsql: %v\n%s", err, out)
		}
		if got := srv.Outcomes(); len(got) != 1 || got[0] != tdstls.StrictTLS {
			t.Fatalf("outcomes %v, want [%v]", got, tdstls.StrictTLS)
		}
	})
}

// runTSQL starts a server with the setting and certificate and runs one
// SELECT through tsql with a freetds.conf [global] section of TDS 7.4 and
// extra; it returns the server, tsql's output and its exit error.
func runTSQL(t *testing.T, tsql, dir string, s tdstls.Setting, cert tls.Certificate, extra string) (*tdstest.Server, string, error) {
	t.Helper()
	srv := &tdstest.Server{Encryption: s, TLS: &tls.Config{Certificates: []tls.Certificate{cert}}}
	srv.OnBatch = func(*tds.SQLBatch) []byte {
		return tdstest.ResultSet([]tds.Column{tdstest.IntColumn("n")}, [][][]byte{{tdstest.Int4(42)}}, tds.TokenDone, false)
	}
	out, err := tsqlSelect(t, tsql, dir, srv.Start(t), extra)
	return srv, out, err
}

// tsqlSelect runs `SELECT 1` through tsql at addr with a freetds.conf
// [global] section of TDS 7.4 and extra (written in dir); it returns tsql's
// output and exit error.
func tsqlSelect(t *testing.T, tsql, dir, addr, extra string) (string, error) {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	conf := filepath.Join(dir, "freetds.conf")
	if err := os.WriteFile(conf, []byte("[global]\n\ttds version = 7.4\n\t"+extra+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tsql, "-H", host, "-p", port, "-U", "u", "-P", "pw", "-o", "q")
	cmd.Env = append(cmd.Environ(), "FREETDSCONF="+conf)
	cmd.Stdin = strings.NewReader("SELECT 1\ngo\nexit\n")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
