package app_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// A held statement whose rendering is over app.MaxShownStatement is filed
// with its start, a note of the whole size and the whole statement's
// SHA-256; the fingerprint covers the whole, so two statements that start
// alike are two approvals, and the identical resend finds its own.
func TestLargeStatementIsFiledCut(t *testing.T) {
	e := newEnv(t, envOpts{})
	head := "DELETE FROM invoices WHERE id IN (" + strings.Repeat("1, ", 1<<20)
	big := stmt("DELETE", head+"2) -- é")
	other := stmt("DELETE", head+"3) -- é")
	d1 := mustDeny(t, e.check(big))
	d2 := mustDeny(t, e.check(other))
	if d1.ApprovalID == "" || d1.ApprovalID == d2.ApprovalID {
		t.Fatalf("two 3 MiB statements that differ after 3 MiB got approvals %q and %q, want two", d1.ApprovalID, d2.ApprovalID)
	}
	recs := e.cp.Records()
	if len(recs) != 2 {
		t.Fatalf("%d requests filed, want 2", len(recs))
	}
	shown := recs[0].Statement
	sum := sha256.Sum256(big.Canonical)
	note := fmt.Sprintf("\n-- [cut by the Sidecar: the first %d bytes of the rendering are shown; the whole statement is %d bytes, SHA-256 %s]",
		app.MaxShownStatement, len(big.Canonical), hex.EncodeToString(sum[:]))
	if !strings.HasSuffix(shown, note) || !strings.HasPrefix(big.Display, strings.TrimSuffix(shown, note)) ||
		len(shown) != app.MaxShownStatement+len(note) || !utf8.ValidString(shown) {
		t.Fatalf("filed statement: %d bytes ending %q", len(shown), shown[max(0, len(shown)-200):])
	}
	if recs[0].Fingerprint == recs[1].Fingerprint {
		t.Fatal("the fingerprint does not cover the whole statement")
	}
	// The identical resend reuses its approval; once approved it runs once.
	if d := mustDeny(t, e.check(big)); d.ApprovalID != d1.ApprovalID {
		t.Fatalf("resend got approval %s, want %s", d.ApprovalID, d1.ApprovalID)
	}
	if err := e.cp.Decide(d1.ApprovalID, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	if o := e.check(big); !o.Forward {
		t.Fatalf("approved resend: %+v", o.Denial)
	}
	if o := e.check(other); o.Forward {
		t.Fatal("the other statement ran on the first one's approval")
	}
}

func TestShownCutsOnARuneBoundary(t *testing.T) {
	if got := app.Shown("SELECT 1", []byte("SELECT 1")); got != "SELECT 1" {
		t.Fatalf("short rendering changed: %q", got)
	}
	s := strings.Repeat("a", app.MaxShownStatement-1) + "é" + "tail"
	got := app.Shown(s, []byte(s))
	if !strings.HasPrefix(got, strings.Repeat("a", app.MaxShownStatement-1)+"\n-- [cut by the Sidecar: the first 65535 bytes") {
		t.Fatalf("cut inside a rune: %q", got[app.MaxShownStatement-4:app.MaxShownStatement+40])
	}
}

// A Control Plane that refuses the request as too large (413) is a
// permanent denial that says so, never "unreachable; resend".
func TestTooLargeIsAPermanentDenial(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.cp.Fail = fmt.Errorf("control plane file: %w (HTTP 413 too_large)", ports.ErrTooLarge)
	d := mustDeny(t, e.check(deleteInvoice))
	if d.Kind != domain.DeniedTooLarge || d.ApprovalID != "" || d.Rule != "db-destructive" {
		t.Fatalf("denial %+v, want DeniedTooLarge naming the rule", d)
	}
	if want := domain.TooLargeMessage("db-destructive"); d.Message != want || strings.Contains(d.Message, "unreachable") ||
		!strings.Contains(d.Message, "do not resend") {
		t.Fatalf("message %q", d.Message)
	}
	if got := e.audit.decisions(); got[len(got)-1] != "deny_too_large" {
		t.Fatalf("audit decisions %v", got)
	}
	if f := d.Fields(); len(f) != 1 || f[0].Value != "policy" {
		t.Fatalf("fields %v, want X-Hoop-Denied: policy only", f)
	}
}
