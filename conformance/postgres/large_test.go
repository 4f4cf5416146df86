package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// A held 2 MiB DELETE through psql (return mode) files an approval whose id
// is in the error, though the reference Control Plane takes no body over
// 1 MiB: the approver reads its first 64 KiB and a note with the size and
// SHA-256 of the whole. Approving it lets the identical resend run once
// (one row deleted); the same text sent again is held anew and deletes
// nothing. docs/control-plane-api.md, "Sizes".
func TestPsqlHeld2MiBDeleteIsFiledAndRunsOnce(t *testing.T) {
	e := newEnv(t)
	addr := e.sidecar("sent")
	e.direct("CREATE TABLE mongoheld_big (id int, note text)")
	e.direct("INSERT INTO mongoheld_big VALUES (1, 'a'), (2, 'b')")
	pad := strings.Repeat("x", 2<<20)
	del := "DELETE FROM mongoheld_big WHERE id = 1 OR note = '" + pad + "';"

	out := e.psql(addr, returnApp, del+"\nSELECT 1 AS alive;\n")
	ids := approvalIDs(out)
	if len(ids) != 1 || !strings.Contains(out, "ERROR:  statement held for human approval: waiting for approval") {
		t.Fatalf("want the held denial naming one approval, psql printed:\n%.2000s", out)
	}
	if !strings.Contains(out, "(1 row)") {
		t.Fatalf("the session did not go on after the denial:\n%.2000s", out)
	}
	r := e.cp.Review(t, ids[0])
	start, note, cut := strings.Cut(r.Statement, "\n-- [cut by the Sidecar: the first ")
	if r.Status != "PENDING" || !cut || !strings.HasPrefix(del, start) || len(start) != 64<<10 {
		t.Fatalf("the approver reads %d bytes: %.200s… %.300s", len(r.Statement), r.Statement, note)
	}
	sum := sha256.Sum256([]byte(del))
	if !strings.Contains(note, fmt.Sprintf("the whole statement is %d bytes, SHA-256 %s]", len(del), hex.EncodeToString(sum[:]))) {
		t.Fatalf("the note does not give the whole statement's size and SHA-256: %q", note)
	}
	if n := e.count("SELECT count(*) FROM mongoheld_big"); n != 2 {
		t.Fatalf("%d rows before approval, want 2", n)
	}

	e.cp.Approve(t, ids[0])
	out = e.psql(addr, returnApp, del+"\n")
	if !strings.Contains(out, "DELETE 1") || strings.Contains(out, "ERROR") {
		t.Fatalf("the approved resend did not run:\n%.2000s", out)
	}
	if n := e.count("SELECT count(*) FROM mongoheld_big"); n != 1 {
		t.Fatalf("%d rows after the approved resend, want 1", n)
	}
	if st := e.cp.Review(t, ids[0]).Status; st != "EXECUTED" {
		t.Fatalf("approval %s, want EXECUTED", st)
	}

	e.direct("INSERT INTO mongoheld_big VALUES (1, 'a')")
	out = e.psql(addr, returnApp, del+"\n")
	if again := approvalIDs(out); len(again) != 1 || again[0] == ids[0] {
		t.Fatalf("sending it again must be held with a new approval:\n%.2000s", out)
	}
	if n := e.count("SELECT count(*) FROM mongoheld_big"); n != 2 {
		t.Fatalf("%d rows after sending it a second time, want 2: it ran twice", n)
	}
}
