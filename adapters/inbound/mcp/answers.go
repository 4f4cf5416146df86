package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// listAnswer is approval_list's answer; the key keeps its earlier name.
type listAnswer struct {
	Reviews []domain.View `json:"reviews"`
}

// okResult returns v as the tool's answer: the JSON text (for agents that
// read content) and the same object as structured content.
func okResult(v any) *sdk.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil { // a View always marshals; keep the process alive anyway
		return errorText("The Sidecar could not encode its answer. Call again.")
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}
}

// errorText is a tool error (IsError) with one text.
func errorText(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// The texts of the error answers (spec, "Status and next": two errors the
// agent stops on, plus the Sidecar's own failures). They name the tools of
// the family the agent called. subject is "approval request <id>" or "the
// approval requests" (approval_list).
func notFoundText(id string, f domain.Family) string {
	return fmt.Sprintf("Not found on this Sidecar: approval request %s. Stop: do not resend the statement and do not call %s "+
		"or %s for it again. The Control Plane scopes the read to this Sidecar, so another Sidecar's approval request "+
		"reads the same as a wrong id; if another Sidecar denied the statement, use that Sidecar's MCP entry.",
		id, f.Tool(domain.ToolWait), f.Tool(domain.ToolStatus))
}

func olderText(subject string) string {
	return fmt.Sprintf("The Control Plane is older than this Sidecar, so it cannot report %s. Stop: do not resend the "+
		"statement. A person checks the approval request in the Control Plane.", subject)
}

func unavailableText(subject string, f domain.Family, k domain.ToolKind) string {
	return fmt.Sprintf("The Control Plane could not report %s right now (it is unreachable or failing). Nothing was "+
		"approved or run. Call %s again in a minute; if it keeps failing, stop: a person checks the approval request "+
		"in the Control Plane.", subject, f.Tool(k))
}

func unauthorizedText(subject string) string {
	return fmt.Sprintf("The Control Plane refused this Sidecar's token, so it cannot report %s. Stop: do not resend the "+
		"statement. A person checks the Sidecar's configuration and the approval request in the Control Plane.", subject)
}

const noControlPlaneText = "This Sidecar has no Control Plane, so it cannot report approvals. Stop: do not resend the " +
	"statement. A person checks the approval request in the Control Plane."

const shuttingDownText = "This Sidecar is shutting down before it read the approval request. Call the same tool again; " +
	"another replica or the restarted Sidecar answers it."

// errorResult maps an error of the approval queries to a tool error.
func (s *Server) errorResult(err error, id string, f domain.Family, k domain.ToolKind) *sdk.CallToolResult {
	subject := "the approval requests"
	if id != "" {
		subject = "approval request " + id
	}
	var ie *inputError
	switch {
	case errors.As(err, &ie):
		return errorText("Invalid arguments for " + f.Tool(k) + ": " + ie.msg + ".")
	case errors.Is(err, ports.ErrNotFound):
		return errorText(notFoundText(id, f))
	case errors.Is(err, ports.ErrOlder):
		s.log.Warn("mcp: the Control Plane is older than this Sidecar", "tool", f.Tool(k), "approval_id", id, "error", err)
		return errorText(olderText(subject))
	case errors.Is(err, ports.ErrUnauthorized):
		s.log.Error("mcp: the Control Plane refused the Sidecar token", "tool", f.Tool(k), "approval_id", id, "error", err)
		return errorText(unauthorizedText(subject))
	case errors.Is(err, app.ErrNoControlPlane):
		return errorText(noControlPlaneText)
	case errors.Is(err, context.Canceled):
		// The caller hung up or cancelled; nobody reads this answer.
		s.log.Debug("mcp: call ended by the caller", "tool", f.Tool(k), "approval_id", id)
		return errorText("The call was cancelled before the Sidecar answered. Call " + f.Tool(k) + " again.")
	default:
		s.log.Warn("mcp: the Control Plane could not answer", "tool", f.Tool(k), "approval_id", id, "error", err)
		return errorText(unavailableText(subject, f, k))
	}
}
