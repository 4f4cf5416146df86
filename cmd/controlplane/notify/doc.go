// Package notify tells people about new approval requests through webhooks
// (docs/controlplane.md, "Notifications"), so approvers need not watch the
// web page.
//
// Files:
//   - notify.go: Notifier (Requested enqueues and returns at once; workers
//     deliver; Close drains) and Webhook, its settings.
//   - payload.go: the two body formats: "json" (a generic JSON POST) and
//     "slack" (Slack's incoming-webhook message, with a link to the request).
//   - deliver.go: one POST retried with exponential backoff
//     (github.com/cenkalti/backoff/v5): network errors, 408, 425, 429 and 5xx
//     are retried (Retry-After honoured), any other answer is final.
//
// The filing of a request never waits for a webhook: Requested puts the
// request on a bounded queue per webhook and drops it, with a log line, when
// that queue is full. The statement is sent only to a webhook whose config
// says include_statement: true.
package notify
