package postgres

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/domain"
)

// SQLSTATE codes the listener sends (documented in docs/postgres-listener.md).
const (
	// CodeHeld is a statement held for a person, or denied by a policy rule:
	// 42501 insufficient_privilege.
	CodeHeld = "42501"
	// CodeUnavailable is a statement that needs approval while the Control
	// Plane cannot be reached (nothing was filed or run): 58000 system_error.
	CodeUnavailable = "58000"
	// CodeCanceled is a statement held in wait mode that the client
	// cancelled: 57014 query_canceled, as PostgreSQL sends.
	CodeCanceled = "57014"
	// CodeUpstream is a connection the Sidecar could not open to the
	// upstream: 08006 connection_failure (FATAL).
	CodeUpstream = "08006"
	// CodeProtocol is a message that breaks the protocol: 08P01
	// protocol_violation (FATAL; the connection closes).
	CodeProtocol = "08P01"
	// CodeAdminShutdown ends a connection because the listener stopped
	// (shutdown, or a reload removed or moved it): 57P01 admin_shutdown
	// (FATAL), as PostgreSQL sends when it shuts down.
	CodeAdminShutdown = "57P01"
	// CodeConfigFile refuses a connection when the listener's TLS
	// certificate cannot be loaded: F0000 config_file_error (FATAL). The
	// listener never answers 'N' to an SSLRequest when tls is configured.
	CodeConfigFile = "F0000"
	// CodeMaskWithheld is a result a strict masking rule refused (a value
	// it could not read; mask.go): 22000 data_exception. The statement
	// ran; only the rest of its result is withheld.
	CodeMaskWithheld = "22000"
)

// denialCodes is the SQLSTATE of each domain.DenialKind (denial_test.go
// checks that every kind has one).
var denialCodes = map[domain.DenialKind]string{
	domain.DeniedForApproval: CodeHeld,
	domain.DeniedByPolicy:    CodeHeld,
	domain.DeniedUnavailable: CodeUnavailable,
	domain.DeniedShutdown:    CodeAdminShutdown,
	domain.DeniedUncheckable: CodeUnanalysable,
	domain.DeniedTooLarge:    CodeHeld,
}

// denialError renders a gate denial as an ErrorResponse (severity ERROR).
// The message is the denial's text exactly; the detail carries the approval
// id, status and rule (the policy rule, or the approval rule the Control
// Plane could not be asked for); the hint says what to do next
// (domain.Hint). A wait ended by shutdown ends the session instead
// (shutdownError, FATAL).
func denialError(d *domain.Denial, withMCP bool) *pgproto3.ErrorResponse {
	e := &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: denialCodes[d.Kind], Message: d.Message,
		Hint: domain.Hint(*d, withMCP)}
	switch d.Kind {
	case domain.DeniedForApproval, domain.DeniedShutdown:
		status := string(d.Status)
		if status == "" {
			status = "unknown"
		}
		e.Detail = fmt.Sprintf("approval id: %s; approval status: %s; approval rule: %s", d.ApprovalID, status, d.Rule)
	case domain.DeniedByPolicy:
		e.Detail = "policy rule: " + d.Rule
	case domain.DeniedUnavailable, domain.DeniedTooLarge:
		e.Detail = "approval rule: " + d.Rule
	}
	return e
}

// canceledError is a held statement the client cancelled.
func canceledError() *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: CodeCanceled,
		Message: "canceling statement due to user request"}
}

// fatal is an error that ends the connection.
func fatal(code, msg string) *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: code, Message: msg}
}
