// Package notify tells people about approval requests through webhooks
// (docs/controlplane.md, "Notifications" and "Notifications never lost"),
// so approvers need not watch the web page.
//
// Files:
//   - notify.go: Notifier (a loop that claims due notifications from the
//     store's outbox and delivers them; Wake; Close) and Webhook.
//   - deliver.go: one try, and its outcome written back to the outbox:
//     delivered, failed for good, or due again after a backoff (network
//     errors, 408, 425, 429 and 5xx are retried, Retry-After honoured,
//     until give_up_after).
//   - sign.go: the Standard Webhooks headers (webhook-id,
//     webhook-timestamp, webhook-signature) and Verify for receivers.
//   - sweep.go: the events no transaction writes: expired requests and
//     reminders of PENDING ones (remind_after, escalate_to).
//   - payload.go: the two body formats: "json" (a generic JSON POST) and
//     "slack" (Slack's incoming-webhook message, with a link to the request).
//
// The notifications themselves live in the store (store/outbox.go): a new
// request or a decision queues its notification in its own transaction,
// so neither a crash nor a receiver that is down loses one, and of several
// replicas one delivers each. The statement is sent only to a webhook whose
// config says include_statement: true.
package notify
