package tdstest_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/tds/tdstest"
)

// TestFreeTDS runs FreeTDS tsql (Debian freetds-bin, installed by make deps)
// against the codec-built server: a second, independent client.
func TestFreeTDS(t *testing.T) {
	tsql, err := exec.LookPath("tsql")
	if err != nil {
		t.Skip("FreeTDS tsql is not installed (make deps installs freetds-bin); this client is not covered")
	}
	srv := &tdstest.Server{OnBatch: func(b *tds.SQLBatch) []byte {
		return tdstest.ResultSet([]tds.Column{tdstest.IntColumn("n"), tdstest.NVarCharColumn("echo")},
			[][][]byte{{tdstest.Int4(42), tdstest.NVarChar(strings.TrimSpace(b.Text))}}, tds.TokenDone, false)
	}}
	host, port, _ := strings.Cut(srv.Start(t), ":")
	cmd := exec.Command(tsql, "-H", host, "-p", port, "-U", "freetds_user", "-P", "pw!", "-D", "hoopdb", "-o", "q")
	cmd.Env = append(cmd.Environ(), "TDSVER=7.4", "FREETDSCONF=/dev/null")
	cmd.Stdin = strings.NewReader("SELECT 'tsql ✓'\ngo\nexit\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tsql: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("42")) || !bytes.Contains(out, []byte("SELECT 'tsql ✓'")) {
		t.Fatalf("tsql output:\n%s", out)
	}
	l := srv.Logins()
	if len(l) != 1 || l[0].UserName != "freetds_user" || l[0].Password != "pw!" || l[0].Database != "hoopdb" {
		t.Fatalf("LOGIN7 from tsql: %+v", l)
	}
	for _, m := range srv.Received() {
		name := map[byte]string{tds.PacketPrelogin: "prelogin", tds.PacketLogin7: "login7", tds.PacketSQLBatch: "sqlbatch"}[m.Type]
		if name == "" {
			continue
		}
		if m.Type == tds.PacketPrelogin {
			p, err := tds.DecodePrelogin(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			enc, _ := p.Encryption()
			t.Logf("tsql's PRELOGIN ENCRYPTION = %d", enc)
		}
		if m.Type == tds.PacketLogin7 {
			// FreeTDS lays the variable part out in another order; the
			// decoded fields must survive Encode.
			again, err := tds.DecodeLogin7(l[0].Encode())
			if err != nil || again.UserName != l[0].UserName || again.Password != l[0].Password || again.AppName != l[0].AppName {
				t.Fatalf("tsql's LOGIN7 does not survive Encode: %v", err)
			}
		}
		if *update {
			if err := os.WriteFile(filepath.Join("..", "testdata", "capture", name+"_freetds.bin"), m.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("tsql %s: %s", strconv.Quote(tsql), strings.TrimSpace(string(out)))
}
