package domain

// Family is the naming family an agent used: the current approval_* names or
// the earlier review_* names (approvals were called reviews before 1.244.0).
// Answers point the agent at tools of the family it called.
type Family int

// The two naming families.
const (
	FamilyApproval Family = iota
	FamilyReview
)

// ToolKind is one of the three MCP tools, independent of its name.
type ToolKind int

// The three read-only MCP tools.
const (
	ToolStatus ToolKind = iota
	ToolWait
	ToolList
)

// Names is every name the Sidecar answers, current and earlier, in one place.
var Names = struct {
	// HTTP headers on a denial (gRPC sends them lowercased as trailing metadata).
	HeaderDenied, HeaderApprovalID, HeaderApprovalStatus string
	HeaderReviewID, HeaderReviewStatus                   string
	HeaderRetryAfter                                     string
	// DeniedReview and DeniedPolicy are the values of X-Hoop-Denied.
	DeniedReview, DeniedPolicy string
	// WellKnownPrefix is owned by the Sidecar on every http listener.
	WellKnownPrefix string
	// StatusPathApprovals and StatusPathReviews are the status path prefixes;
	// the id follows.
	StatusPathApprovals, StatusPathReviews string
	// ListKey is the key of approval_list's answer; it keeps its earlier name.
	ListKey string
	// ReturnModeToken asks for return mode in an application name.
	ReturnModeToken string
	// HeaderApprovalMode asks for return mode on http (and lowercase on grpc).
	HeaderApprovalMode string
}{
	HeaderDenied:         "X-Hoop-Denied",
	HeaderApprovalID:     "X-Hoop-Approval-Id",
	HeaderApprovalStatus: "X-Hoop-Approval-Status",
	HeaderReviewID:       "X-Hoop-Review-Id",
	HeaderReviewStatus:   "X-Hoop-Review-Status",
	HeaderRetryAfter:     "Retry-After",
	DeniedReview:         "review",
	DeniedPolicy:         "policy",
	WellKnownPrefix:      "/.well-known/hoop/",
	StatusPathApprovals:  "/.well-known/hoop/approvals/",
	StatusPathReviews:    "/.well-known/hoop/reviews/",
	ListKey:              "reviews",
	ReturnModeToken:      "hoop-approval=return",
	HeaderApprovalMode:   "X-Hoop-Approval",
}

// RetryAfterSeconds is the Retry-After value (in seconds) sent in return mode
// while the approval request is PENDING.
const RetryAfterSeconds = 5

var toolNames = map[Family][3]string{
	FamilyApproval: {"approval_status", "approval_wait", "approval_list"},
	FamilyReview:   {"review_status", "review_wait", "review_list"},
}

// Tool returns the tool name of kind k in family f, e.g. FamilyReview.Tool(ToolWait) = "review_wait".
func (f Family) Tool(k ToolKind) string { return toolNames[f][k] }

// AllTools lists the six tool names with their family and kind.
func AllTools() []struct {
	Name   string
	Family Family
	Kind   ToolKind
} {
	var out []struct {
		Name   string
		Family Family
		Kind   ToolKind
	}
	for _, f := range []Family{FamilyApproval, FamilyReview} {
		for _, k := range []ToolKind{ToolStatus, ToolWait, ToolList} {
			out = append(out, struct {
				Name   string
				Family Family
				Kind   ToolKind
			}{f.Tool(k), f, k})
		}
	}
	return out
}

// StatusPathID returns the approval id from a status path under either prefix
// (/.well-known/hoop/approvals/<id> or /.well-known/hoop/reviews/<id>) and
// ok=false for any other path, including an empty id or one with a slash.
func StatusPathID(path string) (id string, ok bool) {
	for _, p := range []string{Names.StatusPathApprovals, Names.StatusPathReviews} {
		if len(path) > len(p) && path[:len(p)] == p {
			id = path[len(p):]
			for i := 0; i < len(id); i++ {
				if id[i] == '/' {
					return "", false
				}
			}
			return id, true
		}
	}
	return "", false
}
