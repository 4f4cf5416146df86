// Package cpconfig loads and validates the reference Control Plane's YAML
// config file (docs/controlplane.md, "Config"): where it listens, which store
// it uses, which Sidecars and approvers may call it with which tokens, and
// which webhooks hear of new approval requests (webhooks.go), and which
// approval policies say who may decide and how many must approve
// (policies.go), the Slack app that posts requests with Approve and
// Reject buttons, with each approver's slack_user (slack.go), and whether
// approvers may sign in to the page with an OpenID provider (oidc.go).
//
// Load reads a file, Parse reads bytes; both return a *Config whose tokens are
// resolved (token, token_env or token_file) or an error that names the
// offending path, e.g. "sidecars[1].token: ...".
package cpconfig
