package notify

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// jsonBody is the generic JSON POST (format "json").
type jsonBody struct {
	Event    string       `json:"event"` // approval.requested, .approved, .rejected, .revoked, .expired, .reminder
	URL      string       `json:"url"`   // the request on the approvers' web page
	Approval jsonApproval `json:"approval"`
}

type jsonApproval struct {
	ID             string     `json:"id"`
	Status         string     `json:"status"`
	Sidecar        string     `json:"sidecar"`
	ListenerName   string     `json:"listener_name"`
	ApprovalRule   string     `json:"approval_rule"`
	Protocol       string     `json:"protocol,omitempty"`
	ClientIdentity string     `json:"client_identity,omitempty"`
	CreatedAt      time.Time  `json:"created_at"`
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`
	// DecidedAt, DecidedBy and RejectionReason are set once a person (or
	// the time limit) decided.
	DecidedAt       *time.Time `json:"decided_at,omitempty"`
	DecidedBy       string     `json:"decided_by,omitempty"`
	RejectionReason string     `json:"rejection_reason,omitempty"`
	// Statement is present only with include_statement: true.
	Statement *string `json:"statement,omitempty"`
}

// RequestURL is the link to request id on the web page at public.
func RequestURL(public, id string) string {
	return strings.TrimRight(public, "/") + "/#r-" + url.PathEscape(id)
}

// bodyFor renders event (store.Event…) about rec in w's format.
func bodyFor(w Webhook, event string, rec store.Record, public string) ([]byte, error) {
	link := RequestURL(public, rec.ID)
	switch w.Format {
	case FormatSlack:
		return json.Marshal(slackBody(w, event, rec, link))
	case FormatJSON, "":
		a := jsonApproval{ID: rec.ID, Status: string(rec.Status), Sidecar: rec.Sidecar, ListenerName: rec.ListenerName,
			ApprovalRule: rec.ApprovalRule, Protocol: rec.Protocol, ClientIdentity: rec.ClientIdentity,
			CreatedAt: rec.CreatedAt.UTC(), ExpiresAt: utc(rec.ExpiresAt), DecidedAt: utc(rec.DecidedAt),
			DecidedBy: rec.DecidedBy, RejectionReason: rec.RejectionReason}
		if w.IncludeStatement {
			st := rec.Statement
			a.Statement = &st
		}
		return json.Marshal(jsonBody{Event: event, URL: link, Approval: a})
	}
	return nil, fmt.Errorf("unknown format %q", w.Format)
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// slackStatementMax keeps a section under Slack's 3000-character limit.
const slackStatementMax = 2800

// slackBody is a Slack incoming-webhook message: "text" for notifications
// and clients without blocks, and blocks with the details and the link.
// Text from the request is escaped for Slack's mrkdwn (&, <, >).
func slackBody(w Webhook, event string, rec store.Record, link string) map[string]any {
	who := esc(rec.Sidecar) + " / " + esc(rec.ListenerName)
	if rec.Protocol != "" {
		who += " (" + esc(rec.Protocol) + ")"
	}
	title := slackTitle(event, rec)
	lines := []string{"*" + title + "* on " + who, "Rule: " + esc(rec.ApprovalRule)}
	if rec.RejectionReason != "" {
		lines = append(lines, "Reason: "+esc(rec.RejectionReason))
	}
	if rec.ClientIdentity != "" {
		lines = append(lines, "Client: "+esc(rec.ClientIdentity))
	}
	if rec.ExpiresAt != nil {
		lines = append(lines, "Expires: "+rec.ExpiresAt.UTC().Format(time.RFC3339))
	}
	blocks := []any{section(strings.Join(lines, "\n"))}
	if w.IncludeStatement {
		st := rec.Statement
		if r := []rune(st); len(r) > slackStatementMax {
			st = string(r[:slackStatementMax]) + fmt.Sprintf("\n… (%d more characters: open the request)", len(r)-slackStatementMax)
		}
		blocks = append(blocks, section("```"+strings.ReplaceAll(esc(st), "```", "'''")+"```"))
	}
	blocks = append(blocks, section("<"+link+"|Open the request "+esc(rec.ID)+" to approve or reject it>"))
	return map[string]any{
		"text":   title + " on " + who + " (rule " + esc(rec.ApprovalRule) + "): <" + link + "|open it>",
		"blocks": blocks,
	}
}

// slackTitle says what happened, and who did it for a decision.
func slackTitle(event string, rec store.Record) string {
	by := ""
	if rec.DecidedBy != "" {
		by = " by " + esc(rec.DecidedBy)
	}
	switch event {
	case store.EventApproved:
		return "Approved" + by
	case store.EventRejected:
		return "Rejected" + by
	case store.EventRevoked:
		return "Revoked" + by
	case store.EventExpired:
		return "Expired without a decision"
	case store.EventReminder:
		return "Still waiting for approval"
	}
	return "Approval requested"
}

func section(mrkdwn string) map[string]any {
	return map[string]any{"type": "section", "text": map[string]string{"type": "mrkdwn", "text": mrkdwn}}
}

// esc escapes the three characters Slack's mrkdwn gives a meaning.
func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
