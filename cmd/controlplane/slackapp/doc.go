// Package slackapp posts each new approval request to a Slack channel as an
// app message with Approve and Reject buttons, and takes the clicks back
// (docs/controlplane.md, "Slack app").
//
// Files:
//   - app.go: App and Options; Requested posts a message (chat.postMessage,
//     retried with backoff) without making the Sidecar's filing wait.
//   - message.go: the Block Kit message of a request, as filed and as
//     decided, and the reason modal.
//   - verify.go: Slack's request signature (v0 HMAC-SHA256 over
//     "v0:timestamp:body", a 5-minute window), checked before anything else.
//   - interact.go: the interactivity endpoint: a click maps the Slack user
//     to an approver (slack_user), decides through policy.Decider, and
//     updates the message (chat.update); Reject, or an action whose policy
//     needs a reason, opens a modal (views.open) first.
//
// The Slack Web API is called through github.com/slack-go/slack; the
// incoming-webhook format (webhooks[].format: slack) stays in package notify.
package slackapp
