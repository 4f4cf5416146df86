package httpconformance

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/domain/masking"
)

const (
	maskEmail   = "alice@example.com"
	maskCard    = "4111 1111 1111 1111"
	maskBadLuhn = "4111 1111 1111 1112" // fails Luhn: not a card
	maskKey     = "HOOP_TEST_MASK_KEY"
)

// customerJSON is the upstream's answer: an email and a card inside text,
// a digit-only card under card_number, an id to hash.
const customerJSON = `{"customer": {"contact": "` + maskEmail + `", "note": "card ` + maskCard + `",` +
	` "other": "` + maskBadLuhn + `", "payment": {"card_number": "4111111111111111"}, "customer_id": "cus_8842"}}`

// customers is an upstream that answers customerJSON, gzip-encoded when
// the client accepts gzip or the path ends in .gz.
func customers(t *testing.T) string {
	up, _ := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") && !strings.HasSuffix(r.URL.Path, ".gz") {
			_, _ = io.WriteString(w, customerJSON)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, customerJSON)
		_ = zw.Close()
	}))
	return up.URL
}

// maskingSidecar starts the real sidecar binary with an http listener in
// front of upstream and three masking rules: pii (every entity, mask),
// last4 (card_number, partial keep_last 4) and ids (customer_id, hash with
// the key in maskKey). It returns the listener's base URL and the audit file.
func maskingSidecar(t *testing.T, upstream string) (string, string) {
	t.Helper()
	addr := harness.FreeAddr(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	harness.StartSidecar(t, harness.SidecarOptions{Config: fmt.Sprintf(`
sidecar: test
audit: {file: %s}
masking_rules:
  - name: pii
    entities: [EMAIL_ADDRESS, CREDIT_CARD, IBAN_CODE, US_SSN, PHONE_NUMBER, IP_ADDRESS, JWT, AWS_ACCESS_KEY, PRIVATE_KEY]
    strategy: mask
  - {name: last4, columns: [card_number], strategy: partial, keep_last: 4}
  - {name: ids, columns: [customer_id], strategy: hash, key_env: %s}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s, masking_rules: [last4, ids, pii]}
`, audit, maskKey, addr, upstream)})
	return "http://" + addr, audit
}

// customerFields decodes customerJSON's shape.
func customerFields(t *testing.T, body string) map[string]any {
	t.Helper()
	var doc struct {
		Customer map[string]any `json:"customer"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || doc.Customer == nil {
		t.Fatalf("body %q is not the customer document: %v", body, err)
	}
	return doc.Customer
}

// TestCurlMasksJSONBody: curl reads the customer through the sidecar
// binary with neither the email nor the card in clear, plain and gzip
// (curl --compressed, and the gzip bytes themselves), the card that fails
// Luhn as it is, the card column as ************1111, the id hashed alike
// on two connections and two Sidecar processes, and a "masked" audit line
// with the counts per rule; straight from the upstream both print.
func TestCurlMasksJSONBody(t *testing.T) {
	t.Setenv(maskKey, "a-hash-key-of-thirty-two-bytes!!")
	up := customers(t)
	base, audit := maskingSidecar(t, up)

	_, direct := curl(t, up+"/v1/customers/1")
	if !strings.Contains(direct, maskEmail) || !strings.Contains(direct, maskCard) {
		t.Fatalf("the upstream's own answer lacks the values: %s", direct)
	}

	resp, plain := curl(t, base+"/v1/customers/1")
	compressed := curlBody(t, "--compressed", base+"/v1/customers/1")
	gzResp, gz := curl(t, base+"/v1/customers/1.gz")
	if gzResp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip body: Content-Encoding %q, want gzip re-applied", gzResp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(strings.NewReader(gz))
	if err != nil {
		t.Fatalf("the masked gzip body does not decode: %v", err)
	}
	unzipped, _ := io.ReadAll(zr)
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(plain)) {
		t.Fatalf("%d, Content-Length %d for %d bytes", resp.StatusCode, resp.ContentLength, len(plain))
	}
	var hashes []any
	for name, body := range map[string]string{"plain": plain, "curl --compressed": compressed, "gzip bytes": string(unzipped)} {
		if strings.Contains(body, maskEmail) || strings.Contains(body, maskCard) || strings.Contains(body, "4111111111111111") {
			t.Errorf("%s: a value in clear: %s", name, body)
		}
		c := customerFields(t, body)
		if c["contact"] != "*****@*******.***" || c["note"] != "card **** **** **** ****" || c["other"] != maskBadLuhn ||
			c["payment"].(map[string]any)["card_number"] != "************1111" {
			t.Errorf("%s: %s", name, body)
		}
		hashes = append(hashes, c["customer_id"])
	}

	other, _ := maskingSidecar(t, up)
	_, again := curl(t, other+"/v1/customers/1")
	hashes = append(hashes, customerFields(t, again)["customer_id"])
	h, _ := hashes[0].(string)
	if len(h) != 32 || h == "cus_8842" {
		t.Errorf("customer_id %q, want 32 hex digits", h)
	}
	for _, x := range hashes[1:] {
		if x != h {
			t.Errorf("customer_id hashed as %v and %v: the same value and key must give the same text", h, x)
		}
	}

	line := waitAuditLine(t, audit, "masked")
	want := map[string]float64{"pii": 2, "last4": 1, "ids": 1} // pii: the email and the card in note, per request
	got, _ := line["masked"].(map[string]any)
	for rule, n := range want {
		if got[rule] != n {
			t.Errorf("audit masked[%s] = %v, want %v (line %v)", rule, got[rule], n, line)
		}
	}
}

// TestCurlMaskStrictRefusesUnreadable: a JSON body that does not parse is
// refused with a 502 JSON error naming the rule, and the value is not sent.
func TestCurlMaskStrictRefusesUnreadable(t *testing.T) {
	t.Setenv(maskKey, "a-hash-key-of-thirty-two-bytes!!")
	up, _ := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"contact": "`+maskEmail)
	}))
	base, audit := maskingSidecar(t, up.URL)
	resp, body := curl(t, base+"/v1/broken")
	if resp.StatusCode != 502 || resp.Header.Get("Content-Type") != "application/json" ||
		strings.Contains(body, maskEmail) || !strings.Contains(body, `masking rule \"last4\" could not read a value`) {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	if line := waitAuditLine(t, audit, "mask_withheld"); line["rule"] != "last4" {
		t.Errorf("audit %v", line)
	}
}

// curlBody runs curl -sS with args and returns what it prints: the body as
// curl gives it (decoded with --compressed, where the head curl -i shows
// keeps the encoded Content-Length).
func curlBody(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "curl", append([]string{"-sS"}, args...)...).Output()
	if err != nil {
		t.Fatalf("curl %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// waitAuditLine returns the first audit line with decision, polling the
// file (the trail is written off the statement's path) up to a bound only
// a hang reaches.
func waitAuditLine(t *testing.T, path, decision string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["decision"] == decision {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q line in the audit trail:\n%s", decision, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCurlMaskedResendOfAnApproval: a held DELETE whose answer carries an
// email is masked when its approved resend runs (the approval path goes
// through net/http's proxy, not the relay), and masking changes nothing of
// the statement: the resend matches the approval and runs once.
func TestCurlMaskedResendOfAnApproval(t *testing.T) {
	up, rec := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"deleted": {"id": 42, "owner": "`+maskEmail+`"}}`)
	}))
	set, err := masking.Compile([]masking.Rule{{Name: "pii", Entities: masking.EntityNames(), Strategy: masking.Redact}})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, startControlPlane(t, nil), "test")
	base := w.listen(t, listener{Name: "api", Upstream: up.URL, Rules: []rule{heldDeletes}, Masking: set})
	send := func() (*http.Response, string) {
		return curl(t, "-X", "DELETE", "-H", "X-Hoop-Approval: return", base+"/v1/invoices/42")
	}
	resp, _ := send()
	id := denialHeaders(t, resp, "PENDING", true)
	w.approve(t, id)
	resp, body := send()
	if resp.StatusCode != 200 || body != `{"deleted": {"id": 42, "owner": "<EMAIL_ADDRESS>"}}` {
		t.Fatalf("approved resend: %d %q", resp.StatusCode, body)
	}
	if n := rec.count("DELETE", "/v1/invoices/42"); n != 1 {
		t.Fatalf("the DELETE reached the upstream %d times, want 1", n)
	}
	if !w.audit.has("masked") {
		t.Error("no masked audit line")
	}
}
