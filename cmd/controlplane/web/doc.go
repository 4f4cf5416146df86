// Package web is the reference Control Plane's page for approvers, served at
// "/" (docs/controlplane.md, "Web page"): server-rendered HTML, one embedded
// stylesheet and one small script, no build step and no framework.
//
// Files:
//   - web.go: the handlers: the list (GET /, ?status= filter), the decisions
//     (POST /ui/reviews/{id}/{approve|reject|revoke|reopen}), GET /ui/pending
//     (the PENDING ids, polled by live.js), the embedded assets; sign-in and
//     the cross-origin checks.
//   - view.go: what a card shows: the status's colour class and label, time
//     left (PENDING only), a long statement folded, counts per status.
//   - page.html: the template: a tab per status with its count, one card per
//     request (statement in full, monospace, wrapped; who asked, where, which
//     rule, when; the approvals so far against the policy's quorum ("1 of
//     2"); decided_at and who decided; Approve (with a reason box when the
//     policy requires one), Reject with its reason
//     box, Revoke, Reopen on a REJECTED or REVOKED request not reopened yet).
//   - oidc.go: signing in with an OpenID provider (GET /ui/login, GET
//     /ui/oidc/callback, POST /ui/logout): code flow with PKCE, the claims
//     mapped to an approver and groups.
//   - session.go: the signed cookies (the session, one sign-in's state).
//   - groups.go: the approver as the policies see it (config groups plus
//     the groups claim).
//   - page.css: the stylesheet, mobile first (375 px wide and up).
//   - live.js: polls /ui/pending every 5 s and reloads the list when the
//     pending requests change, unless a reason is being typed.
//
// Sign-in is HTTP Basic auth with an approver token as the password (the user
// name is not checked; the page names the approver the token belongs to) or,
// with Options.OIDC, a session from the company's identity provider
// (docs/controlplane.md, "Signing in with OIDC"). A
// form POST whose Origin header is present and is not this host, or that the
// browser marks cross-site, is refused (403), so another site cannot make a
// signed-in browser decide. Everything shown is escaped by html/template, and
// the Content-Security-Policy allows only this origin's stylesheet, script
// and fetches.
package web
