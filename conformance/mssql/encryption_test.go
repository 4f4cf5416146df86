package mssqlconf

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/internal/tds"
	"github.com/hoophq/sidecar/internal/testcert"
)

// Every encryption mode with every client that has it, through a listener
// with a certificate: go-mssqldb encrypt=disable (plain), false (the login
// under TLS), true (the whole session, TLS inside PRELOGIN packets) and
// strict (TDS 8.0: TLS from the first byte, ALPN tds/8.0); FreeTDS tsql
// encryption = off, request, require (FreeTDS 1.3 has no TDS 8.0); Node
// mssql and tedious encrypt false (ENCRYPT_NOT_SUP), true, "strict". In each, SELECT runs and
// DROP TABLE is held with the approval id: the gate works under TLS. Each
// encrypting client verifies the listener's certificate (the test CA).
func TestEncryptionModes(t *testing.T) {
	e := newEnv(t)
	cert, key := testcert.Write(t, t.TempDir(), "listener")
	e.caFile = filepath.Join(t.TempDir(), "listener.pem") // go-mssqldb reads .pem or .der only
	if b, err := os.ReadFile(cert); err != nil || os.WriteFile(e.caFile, b, 0o644) != nil {
		t.Fatalf("copy the certificate: %v", err)
	}
	addr, _ := e.sidecar(listenerOpts{extra: fmt.Sprintf("    tls: {cert_file: %s, key_file: %s}\n", cert, key)})
	e.direct("CREATE TABLE t (id int)")
	ctx := context.Background()
	for _, mode := range []string{"disable", "false", "true", "strict"} {
		t.Run("go-mssqldb/"+mode, func(t *testing.T) {
			e := e.in(t)
			db := e.open(addr, mode, "")
			var one int
			if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
				t.Fatalf("SELECT 1: %v", err)
			}
			_, err := db.ExecContext(ctx, "DROP TABLE t")
			heldID(t, err)
		})
	}
	for _, mode := range []string{"off", "request", "require"} {
		t.Run("tsql/"+mode, func(t *testing.T) {
			e := e.in(t)
			out := e.tsql(addr, mode, "SELECT 42\ngo\nDROP TABLE t\ngo\nexit\n")
			if !strings.Contains(out, "42") || !strings.Contains(out, "Msg 229") || len(approvalIDs(out)) != 1 {
				t.Fatalf("tsql with encryption = %s:\n%s", mode, out)
			}
		})
	}
	for _, client := range []string{"mssql", "tedious"} {
		for _, mode := range []any{false, true, "strict"} {
			t.Run(fmt.Sprintf("%s/%v", client, mode), func(t *testing.T) {
				e := e.in(t)
				res := e.node(client, addr, mode, "", nodeStmt{SQL: "SELECT 1 AS one"}, nodeStmt{SQL: "DROP TABLE t"})
				if !res[0].OK {
					t.Fatalf("SELECT 1: %+v", res[0])
				}
				nodeHeld(t, res[1])
			})
		}
	}
	if e.count("SELECT COUNT(*) FROM sys.tables WHERE name = 't'") != 1 {
		t.Fatal("a held DROP ran")
	}
}

// A client that asks for encryption is never answered ENCRYPT_NOT_SUP (it
// would then send its login in the clear, or fail): the PRELOGIN of each
// encrypting value (OFF: the login under TLS; ON; REQ) to a listener with
// a certificate and to one without gets an answer that encrypts, or a
// refusal; a client that asks for none gets none.
func TestEncryptionNeverDowngraded(t *testing.T) {
	e := newEnv(t)
	cert, key := testcert.Write(t, t.TempDir(), "listener")
	withTLS, _ := e.sidecar(listenerOpts{extra: fmt.Sprintf("    tls: {cert_file: %s, key_file: %s}\n", cert, key)})
	without, _ := e.sidecar(listenerOpts{})
	names := map[byte]string{tds.EncryptOff: "OFF", tds.EncryptOn: "ON", tds.EncryptReq: "REQ", tds.EncryptNotSup: "NOT_SUP"}
	for _, l := range []struct{ name, addr string }{{"with a certificate", withTLS}, {"without tls", without}} {
		for _, asked := range []byte{tds.EncryptOff, tds.EncryptOn, tds.EncryptReq, tds.EncryptNotSup} {
			got, how := prelogin(t, l.addr, asked)
			t.Logf("listener %s: client %s → %s", l.name, names[asked], how)
			if asked != tds.EncryptNotSup && got == tds.EncryptNotSup {
				t.Errorf("listener %s answered ENCRYPT_NOT_SUP to a client that asked for %s", l.name, names[asked])
			}
		}
	}
}

// prelogin sends a PRELOGIN asking for enc and returns the ENCRYPTION the
// answer carries (0xFF when there is none: a refusal) and what happened,
// in words.
func prelogin(t *testing.T, addr string, enc byte) (byte, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	p := &tds.Prelogin{}
	p.Set(tds.PreloginVersion, tds.VersionData(0x0B000000, 0))
	p.Set(tds.PreloginEncryption, []byte{enc})
	p.Set(tds.PreloginInstOpt, []byte{0})
	p.Set(tds.PreloginThreadID, []byte{0, 0, 0, 0})
	p.Set(tds.PreloginMARS, []byte{0})
	if err := tds.WriteMessage(c, tds.PacketPrelogin, 0, 0, p.Encode(), tds.DefaultPacketSize); err != nil {
		t.Fatal(err)
	}
	mr := &tds.MessageReader{R: c, PacketSize: tds.MaxPacketSize, MaxMessage: 1 << 20}
	m, err := mr.ReadMessage()
	if err != nil {
		return 0xFF, "closed (" + err.Error() + ")"
	}
	if ans, err := tds.DecodePrelogin(m.Data); err == nil {
		if v, ok := ans.Encryption(); ok {
			return v, fmt.Sprintf("PRELOGIN ENCRYPTION 0x%02X", v)
		}
	}
	var sc tds.Scanner
	for b := m.Data; len(b) > 0; {
		tok, err := sc.Next(b)
		if err != nil {
			break
		}
		if tok.Type == tds.TokenError {
			if e, err := tds.DecodeErrorInfo(tok.Body); err == nil {
				return 0xFF, fmt.Sprintf("ERROR %d: %s", e.Number, e.Message)
			}
		}
		b = b[len(tok.Raw):]
	}
	return 0xFF, fmt.Sprintf("a %d-byte answer that is neither PRELOGIN nor ERROR", len(m.Data))
}
