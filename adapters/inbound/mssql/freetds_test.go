package mssql

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tsqlRun runs FreeTDS tsql (Debian freetds-bin, installed by make deps)
// against addr as agent with input, with encryption off (freetds.conf
// `encryption = off`: PRELOGIN ENCRYPT_NOT_SUP), and returns its output.
func tsqlRun(t *testing.T, addr, input string) string { return tsqlRunEnc(t, addr, "off", input) }

// tsqlRunEnc is tsqlRun with freetds.conf's `encryption = enc`.
func tsqlRunEnc(t *testing.T, addr, enc, input string) string {
	t.Helper()
	bin, err := exec.LookPath("tsql")
	if err != nil {
		t.Skip("FreeTDS tsql is not installed (make deps installs freetds-bin); this client is not covered")
	}
	conf := filepath.Join(t.TempDir(), "freetds.conf")
	if err := os.WriteFile(conf, []byte("[global]\n\ttds version = 7.4\n\tencryption = "+enc+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command(bin, "-H", host, "-p", port, "-U", "agent", "-P", "pw", "-D", "hoopdb", "-o", "q")
	cmd.Env = append(cmd.Environ(), "FREETDSCONF="+conf)
	cmd.Stdin = strings.NewReader(input)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// FreeTDS tsql, a second client: a held DELETE prints the denial with the
// approval id; approved, the resend runs once.
func TestFreeTDSHeldAndApproved(t *testing.T) {
	f := newFixture(t, withMode("return"))
	out := tsqlRun(t, f.addr, "DELETE FROM t WHERE id = 3\ngo\nexit\n")
	m := approvalID.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "statement held for human approval") {
		t.Fatalf("tsql output:\n%s", out)
	}
	f.approve(m[1])
	out = tsqlRun(t, f.addr, "DELETE FROM t WHERE id = 3\ngo\nexit\n")
	if strings.Contains(out, "Msg ") || f.ranCount("DELETE FROM t WHERE id = 3") != 1 {
		t.Fatalf("approved resend: ran %d times; tsql output:\n%s", f.ranCount("DELETE FROM t WHERE id = 3"), out)
	}
	if l := f.up.Logins(); len(l) != 2 || l[0].UserName != "agent" || l[0].Password != "pw" {
		t.Fatalf("upstream LOGIN7 from tsql: %+v", l)
	}
}

// FreeTDS's default (encryption = request: login-only TLS) and require
// (the whole session under TLS, the listener's self-signed fallback, which
// FreeTDS accepts without a ca file) are gated the same.
func TestFreeTDSEncrypted(t *testing.T) {
	f := newFixture(t, withMode("return"))
	for _, enc := range []string{"request", "require"} {
		out := tsqlRunEnc(t, f.addr, enc, "SELECT 1\ngo\nDELETE FROM t\ngo\nexit\n")
		if !approvalID.MatchString(out) {
			t.Fatalf("encryption = %s: tsql output:\n%s", enc, out)
		}
	}
}
