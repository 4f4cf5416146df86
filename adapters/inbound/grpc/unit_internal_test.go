package grpclistener

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// message builds protobuf wire bytes: 1: "alice", 2: 42, 3: {1: 7}, 4: 0xff00.
func message() []byte {
	var nested []byte
	nested = protowire.AppendTag(nested, 1, protowire.VarintType)
	nested = protowire.AppendVarint(nested, 7)
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, "alice")
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, 42)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendBytes(b, nested)
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte{0xff, 0x00})
	return b
}

func TestPreview(t *testing.T) {
	got, ok := preview(message())
	if want := `1: "alice" 2: 42 3: {1: 7} 4: 0xff00`; !ok || got != want {
		t.Errorf("preview = %q %v, want %q", got, ok, want)
	}
	if _, ok := preview([]byte{0xff, 0xff, 0xff}); ok {
		t.Error("preview of bytes that are no message succeeded")
	}
	long := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), strings.Repeat("x", 5000))
	if got, ok := preview(long); !ok || len(got) > previewMax+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("long preview: %d chars, ok %v", len(got), ok)
	}
}

func TestCanonicalAndDisplay(t *testing.T) {
	m := "/pkg.Svc/Call"
	none := (&request{method: m, clientDone: true}).canonical()
	empty := (&request{method: m, hasMsg: true, msg: []byte{}}).canonical()
	msg := (&request{method: m, hasMsg: true, msg: message()}).canonical()
	other := (&request{method: "/pkg.Svc/Other", hasMsg: true, msg: message()}).canonical()
	seen := map[string]string{}
	for name, c := range map[string][]byte{"none": none, "empty": empty, "msg": msg, "other": other} {
		if prev, dup := seen[string(c)]; dup {
			t.Errorf("canonical of %s equals %s", name, prev)
		}
		seen[string(c)] = name
	}
	md := fields{field("x-trace", "1")}
	again := (&request{method: m, md: md, hasMsg: true, msg: message()}).canonical()
	if !bytes.Equal(again, msg) {
		t.Error("metadata changed the canonical bytes")
	}

	d := (&request{method: m, hasMsg: true, msg: message()}).display()
	for _, want := range []string{"CALL /pkg.Svc/Call", "request message: 17 bytes", `fields (no schema): 1: "alice" 2: 42`, "hex: 0a05616c696365"} {
		if !strings.Contains(d, want) {
			t.Errorf("display %q lacks %q", d, want)
		}
	}
	big := (&request{method: m, hasMsg: true, msg: bytes.Repeat([]byte{0xff}, 4096)}).display()
	if !strings.HasSuffix(big, "…") || len(big) > 2*displayHexBytes+200 {
		t.Errorf("display of a large message is %d chars", len(big))
	}
	if d := (&request{method: m, clientDone: true}).display(); d != "CALL /pkg.Svc/Call\nno request message" {
		t.Errorf("display without a message: %q", d)
	}
}

func TestIdentityReturnModeAndForwardedMetadata(t *testing.T) {
	kv := []string{":authority", "sidecar:1", "authorization", "Bearer a", "x-hoop-approval", " Return ",
		"user-agent", "agent/1", "x-trace", "t1", "grpc-accept-encoding", "gzip"}
	md := metadata.Pairs(kv...)
	if !app.WantsReturnModeHeader(md.Get) || app.WantsReturnModeHeader(metadata.Pairs("x-hoop-approval", "wait").Get) {
		t.Error("x-hoop-approval: return not recognised")
	}
	got := app.IdentityValues(md.Get, []string{"Authorization", "x-team"})
	if len(got) != 2 || got["authorization"][0] != "Bearer a" || len(got["x-team"]) != 0 {
		t.Errorf("identity values %v", got)
	}
	if app.IdentityValues(md.Get, nil) != nil {
		t.Error("identity values without identity_keys")
	}
	var f fields
	for i := 0; i+1 < len(kv); i += 2 {
		f = append(f, field(kv[i], kv[i+1]))
	}
	fwd := forwardFields(nil, f, "up:1", 0)
	if len(fwd) != len(f)-1 || len(fwd.Get("x-hoop-approval")) != 0 || fwd.first(":authority") != "up:1" ||
		fwd.first("authorization") != "Bearer a" || fwd.first("user-agent") != "agent/1" {
		t.Errorf("forwarded %v", fwd)
	}
	if got := forwardFields(nil, fields{field("grpc-timeout", "10S")}, "", 1500*time.Millisecond).first("grpc-timeout"); got != "1500000u" {
		t.Errorf("grpc-timeout of a held call: %q", got)
	}
}

func TestDenialTrailer(t *testing.T) {
	cases := []struct {
		name string
		d    domain.Denial
		want map[string]string
	}{
		{"pending, return mode", domain.Denial{Kind: domain.DeniedForApproval, ApprovalID: "A1", Status: "PENDING", RetryAfter: true},
			map[string]string{"x-hoop-denied": "review", "x-hoop-approval-id": "A1", "x-hoop-review-id": "A1",
				"x-hoop-approval-status": "PENDING", "x-hoop-review-status": "PENDING", "retry-after": "5"}},
		{"rejected", domain.Denial{Kind: domain.DeniedForApproval, ApprovalID: "A1", Status: "REJECTED"},
			map[string]string{"x-hoop-denied": "review", "x-hoop-approval-id": "A1", "x-hoop-review-id": "A1",
				"x-hoop-approval-status": "REJECTED", "x-hoop-review-status": "REJECTED"}},
		{"status unread", domain.Denial{Kind: domain.DeniedForApproval, ApprovalID: "A1", RetryAfter: false},
			map[string]string{"x-hoop-denied": "review", "x-hoop-approval-id": "A1", "x-hoop-review-id": "A1"}},
		// An approval denial without an id sends no empty id (the grpc
		// listener used to send x-hoop-approval-id: "").
		{"no id", domain.Denial{Kind: domain.DeniedForApproval, Status: "PENDING"}, map[string]string{"x-hoop-denied": "review"}},
		{"policy", domain.Denial{Kind: domain.DeniedByPolicy}, map[string]string{"x-hoop-denied": "policy"}},
		{"unavailable", domain.Denial{Kind: domain.DeniedUnavailable}, map[string]string{"x-hoop-denied": "policy"}},
	}
	for _, tc := range cases {
		md := denialTrailer(&tc.d)
		if len(md) != len(tc.want) {
			t.Errorf("%s: trailer %v, want %v", tc.name, md, tc.want)
		}
		for k, v := range tc.want {
			if got := md.Get(k); len(got) != 1 || got[0] != v {
				t.Errorf("%s: %s = %q, want %q", tc.name, k, got, v)
			}
		}
	}
}

func TestUpstreamTarget(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:50051": "127.0.0.1:50051", "http://up:80": "up:80", "https://up:443/": "up:443", "dns:///up:1": "dns:///up:1",
	} {
		got, tc := target(&app.ListenerSettings{Upstream: in})
		if got != want || tc.Enabled != strings.HasPrefix(in, "https://") {
			t.Errorf("target(%q) = %q tls %v", in, got, tc.Enabled)
		}
	}
}

// fields.Get finds a name in any case, as strings.ToLower would.
func TestFieldsGetIgnoresCase(t *testing.T) {
	f := fields{field("x-hoop-approval", "return"), field("authorization", "a"), field("authorization", "b"), field("k", "1")}
	for name, want := range map[string]int{"X-Hoop-Approval": 1, "AUTHORIZATION": 2, "authorization": 2, "x-hoop": 0, "\u212a": 1, "x-hoop-approvaL ": 0} {
		if got := f.Get(name); len(got) != want {
			t.Errorf("Get(%q) = %q, want %d values", name, got, want)
		}
	}
}
