// Package web is the reference Control Plane's page for approvers, served at
// "/": it lists approval requests newest first (Sidecar, listener, rule,
// statement, status) with approve, reject (with a reason) and revoke buttons,
// and a reopen button on a REJECTED or REVOKED row not reopened yet (a person
// asking again: a new PENDING request), that post plain forms to
// /ui/reviews/{id}/{action}.
//
// Sign-in is HTTP Basic auth with an approver token as the password (any user
// name). A form POST whose Origin header is present and is not this host is
// refused (403), so another site cannot make a signed-in browser decide.
// Everything shown is escaped by html/template.
package web
