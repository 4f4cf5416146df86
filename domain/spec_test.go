package domain_test

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// spec is the contract's text (testdata holds a verbatim copy).
func spec(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/approval-status-for-agents.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every name the Sidecar answers equals the value written here, and the spec
// carries it in exactly this spelling.
func TestNamesMatchTheSpec(t *testing.T) {
	s := spec(t)
	n := domain.Names
	cases := []struct {
		got, want, inSpec string
	}{
		{n.HeaderDenied, "X-Hoop-Denied", "`X-Hoop-Denied`"},
		{n.HeaderApprovalID, "X-Hoop-Approval-Id", "`X-Hoop-Approval-Id`"},
		{n.HeaderApprovalStatus, "X-Hoop-Approval-Status", "`X-Hoop-Approval-Status`"},
		{n.HeaderReviewID, "X-Hoop-Review-Id", "`X-Hoop-Review-Id`"},
		{n.HeaderReviewStatus, "X-Hoop-Review-Status", "`X-Hoop-Review-Status`"},
		{n.HeaderRetryAfter, "Retry-After", "`Retry-After`\t`5`"},
		{n.DeniedReview, "review", "`X-Hoop-Denied`\t`review`"},
		{n.DeniedPolicy, "policy", "Any other denial says `policy`"},
		{n.WellKnownPrefix, "/.well-known/hoop/", "The whole /.well-known/hoop/ prefix belongs to the Sidecar"},
		{n.StatusPathApprovals, "/.well-known/hoop/approvals/", "GET /.well-known/hoop/approvals/<id>"},
		{n.StatusPathReviews, "/.well-known/hoop/reviews/", "the /.well-known/hoop/reviews/<id> path"},
		{n.ListKey, "reviews", `{"reviews": [...]}`},
		// Not in the spec's text: docs/agents.md and docs/config.md ("Return mode per client") name them.
		{n.ReturnModeToken, "hoop-approval=return", ""},
		{n.HeaderApprovalMode, "X-Hoop-Approval", ""},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("name %q, want %q", tc.got, tc.want)
		}
		if tc.inSpec != "" && !strings.Contains(s, tc.inSpec) {
			t.Errorf("the spec does not say %q", tc.inSpec)
		}
	}
	if domain.RetryAfterSeconds != 5 {
		t.Errorf("RetryAfterSeconds = %d, want 5", domain.RetryAfterSeconds)
	}
	// The spec's connection string asks for return mode with the token.
	app, _ := url.QueryUnescape("claude%20hoop-approval%3Dreturn")
	if !strings.Contains(s, "application_name=claude%20hoop-approval%3Dreturn") || !domain.WantsReturnMode(app) {
		t.Errorf("the spec's application_name %q does not ask for return mode", app)
	}
}

func TestSixToolNames(t *testing.T) {
	s := spec(t)
	want := []struct {
		name   string
		family domain.Family
		kind   domain.ToolKind
	}{
		{"approval_status", domain.FamilyApproval, domain.ToolStatus},
		{"approval_wait", domain.FamilyApproval, domain.ToolWait},
		{"approval_list", domain.FamilyApproval, domain.ToolList},
		{"review_status", domain.FamilyReview, domain.ToolStatus},
		{"review_wait", domain.FamilyReview, domain.ToolWait},
		{"review_list", domain.FamilyReview, domain.ToolList},
	}
	got := domain.AllTools()
	if len(got) != len(want) {
		t.Fatalf("%d tools, want 6", len(got))
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Family != w.family || got[i].Kind != w.kind {
			t.Errorf("tool %d = %+v, want %+v", i, got[i], w)
		}
		if f := w.family.Tool(w.kind); f != w.name {
			t.Errorf("Tool(%v, %v) = %q, want %q", w.family, w.kind, f, w.name)
		}
		if !strings.Contains(s, w.name) {
			t.Errorf("the spec does not name %s", w.name)
		}
	}
	for _, row := range []string{"`approval_status`\t`id`", "`approval_wait`\t`id`, `timeout_seconds`", "`approval_list`\t`status`, `limit`",
		"review_status, review_wait and review_list"} {
		if !strings.Contains(s, row) {
			t.Errorf("the spec's tool table lacks %q", row)
		}
	}
}

func TestDenialTextsAreTheSpecs(t *testing.T) {
	s := spec(t)
	var errs []string
	for _, line := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(line, "ERROR:  "); ok {
			errs = append(errs, rest)
		}
	}
	if len(errs) != 2 {
		t.Fatalf("the spec has %d ERROR lines, want 2", len(errs))
	}
	if got := domain.DenialMessage("9f97…", domain.StatusPending, "", false); got != errs[0] {
		t.Errorf("denial:\n got %q\nspec %q", got, errs[0])
	}
	if got := domain.DenialMessage("9f97…", domain.StatusPending, "", true); got != errs[1] {
		t.Errorf("MCP denial:\n got %q\nspec %q", got, errs[1])
	}
	if !strings.Contains(s, `"instruction": "`+specApproved+`"`) {
		t.Errorf("the spec's APPROVED instruction is not %q", specApproved)
	}
}

func TestStatusPathID(t *testing.T) {
	cases := []struct {
		path string
		id   string
		ok   bool
	}{
		{"/.well-known/hoop/approvals/9f97", "9f97", true},
		{"/.well-known/hoop/reviews/9f97", "9f97", true},
		{"/.well-known/hoop/approvals/9f97c0de-5a1b-4c2e-9d1e-1f2a3b4c5d6e", "9f97c0de-5a1b-4c2e-9d1e-1f2a3b4c5d6e", true},
		{"/.well-known/hoop/approvals/", "", false},
		{"/.well-known/hoop/approvals", "", false},
		{"/.well-known/hoop/approvals/9f97/", "", false},
		{"/.well-known/hoop/approvals/a/b", "", false},
		{"/.well-known/hoop/other/9f97", "", false},
		{"/.well-known/hoop/", "", false},
		{"/api/approvals/9f97", "", false},
		{"", "", false},
	}
	for _, tc := range cases {
		id, ok := domain.StatusPathID(tc.path)
		if id != tc.id || ok != tc.ok {
			t.Errorf("StatusPathID(%q) = %q, %v; want %q, %v", tc.path, id, ok, tc.id, tc.ok)
		}
	}
}
