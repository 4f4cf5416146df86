package slackapp

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// Action ids of the buttons, and the block and action id of the reason input.
const (
	actionApprove = "hoop_approve"
	actionReject  = "hoop_reject"
	modalCallback = "hoop_reason"
	reasonBlock   = "reason"
)

// maxStatement bounds the statement shown (characters); a section's text
// may be 3000.
const maxStatement = 2500

// message is the Block Kit message for rec: the fallback text (what a
// notification preview shows) and the blocks. A PENDING request has Approve
// and Reject buttons whose value is its id; any other status replaces them
// with who decided. required is how many approvals rec's policy needs.
func message(rec store.Record, publicURL string, withStatement bool, required int) (string, []slack.Block) {
	text := fmt.Sprintf("Approval requested: %s on Sidecar %s (%s)", rec.ListenerName, rec.Sidecar, rec.ApprovalRule)
	head := fmt.Sprintf("*Approval requested* on *%s* (Sidecar %s)\n%s by `%s` under rule `%s`",
		esc(rec.ListenerName), esc(rec.Sidecar), esc(rec.Protocol), esc(rec.ClientIdentity), esc(rec.ApprovalRule))
	blocks := []slack.Block{slack.NewSectionBlock(md(head), nil, nil)}
	if withStatement && rec.Statement != "" {
		s := rec.Statement
		if r := []rune(s); len(r) > maxStatement {
			s = string(r[:maxStatement]) + "…"
		}
		blocks = append(blocks, slack.NewSectionBlock(md("```"+esc(strings.ReplaceAll(s, "```", "`\u200b``"))+"```"), nil, nil))
	}
	ctx := []string{"id " + rec.ID}
	if publicURL != "" {
		ctx = append(ctx, fmt.Sprintf("<%s/#r-%s|Open in the Control Plane>", publicURL, rec.ID))
	}
	if rec.ExpiresAt != nil && rec.Status == domain.StatusPending {
		ctx = append(ctx, fmt.Sprintf("expires <!date^%d^{date_short_pretty} {time}|%s>", rec.ExpiresAt.Unix(), rec.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")))
	}
	blocks = append(blocks, slack.NewContextBlock("", md(strings.Join(ctx, " · "))))
	status := statusLine(rec, required)
	if status != "" {
		blocks = append(blocks, slack.NewSectionBlock(md(status), nil, nil))
		text += ": " + status
	}
	if rec.Status == domain.StatusPending {
		approve := slack.NewButtonBlockElement(actionApprove, rec.ID, plain("Approve"))
		approve.Style = slack.StylePrimary
		reject := slack.NewButtonBlockElement(actionReject, rec.ID, plain("Reject"))
		reject.Style = slack.StyleDanger
		blocks = append(blocks, slack.NewActionBlock("decide", approve, reject))
	}
	return text, blocks
}

// statusLine says where rec stands: the approvals so far of a PENDING
// request ("" when none), or who decided it.
func statusLine(rec store.Record, required int) string {
	var names []string
	for _, v := range rec.Approvals {
		names = append(names, esc(v.Approver))
	}
	switch rec.Status {
	case domain.StatusPending:
		if len(names) == 0 {
			return ""
		}
		return fmt.Sprintf("Approved by %s (%d of %d); still PENDING", strings.Join(names, ", "), len(names), required)
	case domain.StatusApproved:
		if len(names) == 0 {
			names = []string{esc(rec.DecidedBy)}
		}
		return ":white_check_mark: *Approved* by " + strings.Join(names, ", ")
	case domain.StatusRejected:
		s := ":x: *Rejected* by " + esc(rec.DecidedBy)
		if rec.RejectionReason != "" {
			s += ": " + esc(rec.RejectionReason)
		}
		return s
	case domain.StatusRevoked:
		return "*Revoked* by " + esc(rec.DecidedBy)
	}
	return "Now *" + string(rec.Status) + "*"
}

// reasonModal asks for the reason of action ("approve" or "reject") on
// request id; meta (private_metadata) carries what the submission needs.
func reasonModal(action, id, meta string) slack.ModalViewRequest {
	verb := "Reject"
	if action == "approve" {
		verb = "Approve"
	}
	input := slack.NewPlainTextInputBlockElement(plain("Why?"), reasonBlock)
	input.Multiline = true
	input.MaxLength = maxReason
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		Title:           plain(verb + " request"),
		Submit:          plain(verb),
		Close:           plain("Cancel"),
		CallbackID:      modalCallback,
		PrivateMetadata: meta,
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(md("Request `"+esc(id)+"`"), nil, nil),
			slack.NewInputBlock(reasonBlock, plain("Reason"), nil, input),
		}},
	}
}

func md(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, false)
}
func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}

// esc escapes the three characters Slack's mrkdwn gives meaning to
// (https://api.slack.com/reference/surfaces/formatting#escaping).
func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
