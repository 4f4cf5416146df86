package web

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// view is what page.html renders.
type view struct {
	Approver   string
	SignOut    bool   // signed in with OIDC: offer Sign out
	Status     string // the filter; "" for every status
	Self       string // this list's URL (the filter only), for live.js
	Tabs       []tab
	Pending    int    // PENDING requests, for the title
	PendingIDs string // their ids, comma-joined, for live.js
	Notice     string
	Error      string
	Cards      []card
}

// tab is one status filter with its count ("200+" past pageLimit).
type tab struct {
	Label, Href, Count string
	Current            bool
}

// card is one request as the page shows it.
type card struct {
	store.Record
	Class, Label string // the status's CSS class and words
	Age          string // "3 min ago"
	TimeLeft     string // "expires in 27 min", only while PENDING
	ShowExpiry   bool
	// ExpiredAt is when an EXPIRED request's time limit lapsed (nil when
	// not EXPIRED, or no time limit is known).
	ExpiredAt *time.Time
	// Required is how many approvals the request's policy needs;
	// ApproveReason and RejectReason say the policy needs a reason.
	Required                    int
	MissingGroups               []string
	ApproveReason, RejectReason bool
	Folded                      bool // a long statement: Preview first, the whole in <details>
	Preview                     string
	Lines, Chars                int
}

// statusLabels are the words shown beside each status's colour.
var statusLabels = map[domain.Status]string{
	domain.StatusPending: "Pending", domain.StatusApproved: "Approved", domain.StatusRejected: "Rejected",
	domain.StatusRevoked: "Revoked", domain.StatusProcessing: "Processing", domain.StatusExecuted: "Executed",
	domain.StatusExpired: "Expired",
}

// Folding: a statement longer than foldLines lines or foldChars characters
// shows its first previewLines lines, and the whole behind a toggle.
const (
	foldLines    = 12
	foldChars    = 1200
	previewLines = 8
	previewChars = 600
)

func newCard(r store.Record, now time.Time) card {
	c := card{Record: r, Class: string(r.Status), Label: statusLabels[r.Status], Age: ago(now.Sub(r.CreatedAt))}
	if c.Label == "" {
		c.Class, c.Label = "other", string(r.Status)
	}
	if r.ExpiresAt != nil && r.Status == domain.StatusPending { // a decided request shows no time left
		c.ShowExpiry = true
		c.TimeLeft = "expires in " + until(r.ExpiresAt.Sub(now))
	}
	if r.Status == domain.StatusExpired {
		c.ExpiredAt = r.ExpiresAt
		// The store reads decided_at = expires_at for a request whose time
		// limit lapsed undecided (the API's contract), but no person decided
		// it: the card says when it expired, and shows no decision.
		if r.DecidedBy == "" {
			c.DecidedAt = nil
		}
	}
	c.Lines = strings.Count(r.Statement, "\n") + 1
	c.Chars = len([]rune(r.Statement))
	if c.Lines > foldLines || c.Chars > foldChars {
		c.Folded = true
		lines := strings.SplitN(r.Statement, "\n", previewLines+1)
		p := strings.Join(lines[:min(len(lines), previewLines)], "\n")
		if rs := []rune(p); len(rs) > previewChars {
			p = string(rs[:previewChars])
		}
		c.Preview = p + "\n…"
	}
	return c
}

// ago says how long ago d was, coarsely ("just now", "3 min ago", "2 h ago", "4 days ago").
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
}

// until says how long is left, rounded down ("under a minute", "27 min", "3 h 5 min").
func until(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %d min", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}

// selfURL is the list's address for filter st ("" for every status).
func selfURL(st string) string {
	if st == "" {
		return "/"
	}
	return "/?status=" + url.QueryEscape(st)
}
