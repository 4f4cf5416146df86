package domain_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/hoophq/sidecar/domain"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

// asMap marshals v and decodes it back, so keys and values compare as JSON.
func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func specJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The status path example of the spec, key for key.
func TestViewStatusPathExample(t *testing.T) {
	a := domain.Approval{ID: "9f97…", Status: domain.StatusPending, ListenerName: "billing-api",
		ApprovalRule: "billing-approvers", CreatedAt: at("2026-09-29T14:02:11Z"), ExpiresAt: ptr(at("2026-09-29T14:32:11Z"))}
	got := asMap(t, domain.NewView(a, at("2026-09-29T14:05:00Z"), false, domain.FamilyApproval))
	want := specJSON(t, `{
  "id": "9f97…",
  "status": "PENDING",
  "listener_name": "billing-api",
  "approval_rule": "billing-approvers",
  "created_at": "2026-09-29T14:02:11Z",
  "decided_at": null,
  "expires_at": "2026-09-29T14:32:11Z",
  "next": "wait"
}`)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("view\n got %v\nwant %v", got, want)
	}
}

// The MCP example of the spec (approval_wait's answer), key for key.
func TestViewMCPExample(t *testing.T) {
	a := domain.Approval{ID: "9f97…", Status: domain.StatusApproved, ListenerName: "payments",
		ApprovalRule: "payments-approvers", CreatedAt: at("2026-09-29T14:02:11Z"), DecidedAt: ptr(at("2026-09-29T14:03:40Z"))}
	v := domain.NewView(a, at("2026-09-29T14:03:53Z"), true, domain.FamilyApproval)
	v.TimedOut, v.WaitedSeconds = ptr(false), ptr(42)
	want := specJSON(t, `{
  "id": "9f97…",
  "status": "APPROVED",
  "listener_name": "payments",
  "approval_rule": "payments-approvers",
  "created_at": "2026-09-29T14:02:11Z",
  "decided_at": "2026-09-29T14:03:40Z",
  "next": "resend_identical_statement",
  "instruction": "Approved. Resend the identical statement, byte for byte, to listener payments. It runs once.",
  "timed_out": false,
  "waited_seconds": 42
}`)
	if got := asMap(t, v); !reflect.DeepEqual(got, want) {
		t.Fatalf("view\n got %v\nwant %v", got, want)
	}
}

func TestViewOptionalKeys(t *testing.T) {
	now := at("2026-09-29T14:05:00Z")
	a := domain.Approval{ID: "1", Status: domain.StatusPending, CreatedAt: at("2026-09-29T14:02:11Z")}
	m := asMap(t, domain.NewView(a, now, false, domain.FamilyApproval))
	for _, k := range []string{"expires_at", "rejection_reason", "instruction", "timed_out", "waited_seconds"} {
		if _, ok := m[k]; ok {
			t.Errorf("key %s present without a reason: %v", k, m)
		}
	}
	if v, ok := m["decided_at"]; !ok || v != nil {
		t.Errorf("decided_at = %v (present %v), want null", v, ok)
	}

	a.Status, a.DecidedAt = domain.StatusRejected, ptr(at("2026-09-29T14:04:00Z"))
	if _, ok := asMap(t, domain.NewView(a, now, false, domain.FamilyApproval))["rejection_reason"]; ok {
		t.Error("rejection_reason present on a rejection that gave none")
	}
	a.RejectionReason = "not during the freeze"
	m = asMap(t, domain.NewView(a, now, true, domain.FamilyReview))
	if m["rejection_reason"] != "not during the freeze" || m["next"] != "stop" {
		t.Errorf("rejected view %v", m)
	}
}

func TestViewTimesAreUTCSeconds(t *testing.T) {
	cest := time.FixedZone("CEST", 2*3600)
	a := domain.Approval{ID: "1", Status: domain.StatusPending,
		CreatedAt: time.Date(2026, 9, 29, 16, 2, 11, 987654321, cest)}
	m := asMap(t, domain.NewView(a, at("2026-09-29T14:05:00Z"), false, domain.FamilyApproval))
	if m["created_at"] != "2026-09-29T14:02:11Z" {
		t.Fatalf("created_at = %v, want 2026-09-29T14:02:11Z", m["created_at"])
	}
}

func TestViewExpiry(t *testing.T) {
	exp := at("2026-09-29T14:32:11Z")
	pending := domain.Approval{ID: "1", Status: domain.StatusPending, CreatedAt: at("2026-09-29T14:02:11Z"), ExpiresAt: &exp}
	approved := pending
	approved.Status, approved.DecidedAt = domain.StatusApproved, ptr(at("2026-09-29T14:03:40Z"))
	cases := []struct {
		name    string
		a       domain.Approval
		now     time.Time
		status  string
		next    string
		decided any
	}{
		{"pending before the limit", pending, exp.Add(-time.Second), "PENDING", "wait", nil},
		{"pending at the limit", pending, exp, "EXPIRED", "stop", "2026-09-29T14:32:11Z"},
		{"pending after the limit", pending, exp.Add(time.Hour), "EXPIRED", "stop", "2026-09-29T14:32:11Z"},
		{"approved before the limit", approved, exp.Add(-time.Second), "APPROVED", "resend_identical_statement", "2026-09-29T14:03:40Z"},
		// docs/control-plane-api.md: a PENDING or APPROVED request at or past
		// expires_at reads EXPIRED with decided_at = expires_at.
		{"approved after the limit", approved, exp.Add(time.Minute), "EXPIRED", "stop", "2026-09-29T14:32:11Z"},
	}
	for _, tc := range cases {
		m := asMap(t, domain.NewView(tc.a, tc.now, true, domain.FamilyApproval))
		if m["status"] != tc.status || m["next"] != tc.next || m["decided_at"] != tc.decided {
			t.Errorf("%s: status=%v next=%v decided_at=%v, want %s %s %v", tc.name, m["status"], m["next"], m["decided_at"],
				tc.status, tc.next, tc.decided)
		}
		if tc.status == "EXPIRED" && m["instruction"] != "Expired before it was used. Do not resend. Only a person can ask again." {
			t.Errorf("%s: instruction %v", tc.name, m["instruction"])
		}
	}
	// Statuses other than PENDING and APPROVED never expire.
	for _, st := range []domain.Status{"PROCESSING", "REJECTED", "REVOKED", "EXECUTED"} {
		a := pending
		a.Status = st
		if got := a.EffectiveStatus(exp.Add(time.Hour)); got != st {
			t.Errorf("%s past the limit reads %s", st, got)
		}
	}
}
