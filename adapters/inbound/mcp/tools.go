package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// addTools registers the six tools: approval_* and their earlier review_*
// names, with the same input and output. Every tool is read-only.
func (s *Server) addTools(ms *sdk.Server) {
	for _, t := range domain.AllTools() {
		f, k := t.Family, t.Kind
		tool := &sdk.Tool{
			Name:        t.Name,
			Title:       titles[k],
			Description: description(f, k),
			InputSchema: inputSchema(k),
			Annotations: &sdk.ToolAnnotations{
				Title:           titles[k],
				ReadOnlyHint:    true,
				IdempotentHint:  true,
				DestructiveHint: new(false),
				OpenWorldHint:   new(false),
			},
		}
		ms.AddTool(tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return s.call(ctx, req, f, k), nil
		})
	}
}

var titles = map[domain.ToolKind]string{
	domain.ToolStatus: "Read an approval request",
	domain.ToolWait:   "Wait for a person to decide an approval request",
	domain.ToolList:   "List this Sidecar's approval requests",
}

func description(f domain.Family, k domain.ToolKind) string {
	var d string
	switch k {
	case domain.ToolStatus:
		d = "Reads the approval request once and says what to do next: next is wait, resend_identical_statement or stop, " +
			"and instruction says it in words. Use the approval id from the denial."
	case domain.ToolWait:
		d = fmt.Sprintf("Reads the approval request every 2 seconds until a person decides or timeout_seconds ends "+
			"(default %d, max %d), then answers like %s with timed_out and waited_seconds. timed_out: true is not an "+
			"error: call again. Keep the default timeout. Sends a progress notification every 2 seconds to a client "+
			"that asks for them.", app.DefaultWaitSeconds, app.MaxWaitSeconds, f.Tool(domain.ToolStatus))
	case domain.ToolList:
		d = fmt.Sprintf("Lists this Sidecar's approval requests, newest first, across every listener, as "+
			`{"reviews": [...]} of the shape %s answers. status filters on one status; limit is 1 to %d (default %d).`,
			f.Tool(domain.ToolStatus), app.MaxListLimit, app.DefaultListLimit)
	}
	d += " Read-only: it never returns the statement and approves nothing."
	if f == domain.FamilyReview {
		d += fmt.Sprintf(" Earlier name of %s, with the same input and output.", domain.FamilyApproval.Tool(k))
	}
	return d
}

// inputSchema is the JSON Schema of a tool's arguments, with the defaults
// and bounds that input.go enforces.
func inputSchema(k domain.ToolKind) map[string]any {
	id := map[string]any{"type": "string", "minLength": 1,
		"description": "The approval id, as the denial gave it (e.g. the X-Hoop-Approval-Id value or the id in the error text)."}
	switch k {
	case domain.ToolWait:
		return map[string]any{"type": "object", "required": []string{"id"}, "properties": map[string]any{
			"id": id,
			"timeout_seconds": map[string]any{"type": "integer", "minimum": 1, "maximum": app.MaxWaitSeconds,
				"default": app.DefaultWaitSeconds, "description": "How long to wait for a decision, in seconds."},
		}}
	case domain.ToolList:
		statuses := make([]string, len(domain.KnownStatuses))
		for i, st := range domain.KnownStatuses {
			statuses[i] = string(st)
		}
		return map[string]any{"type": "object", "properties": map[string]any{
			"status": map[string]any{"type": "string", "enum": statuses,
				"description": "Only approval requests in this status; omit for every status."},
			"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": app.MaxListLimit,
				"default": app.DefaultListLimit, "description": "How many approval requests to return at most."},
		}}
	default:
		return map[string]any{"type": "object", "required": []string{"id"}, "properties": map[string]any{"id": id}}
	}
}

// call answers one tool call. Every error is a tool error (IsError), never a
// protocol error, so the agent reads the text.
func (s *Server) call(ctx context.Context, req *sdk.CallToolRequest, f domain.Family, k domain.ToolKind) *sdk.CallToolResult {
	args, err := parseArgs(req.Params.Arguments)
	if err != nil {
		return s.errorResult(err, "", f, k)
	}
	switch k {
	case domain.ToolStatus:
		return s.status(ctx, args, f)
	case domain.ToolWait:
		return s.wait(ctx, req, args, f)
	default:
		return s.list(ctx, args, f)
	}
}

func (s *Server) status(ctx context.Context, args rawArgs, f domain.Family) *sdk.CallToolResult {
	id, err := args.id()
	if err != nil {
		return s.errorResult(err, "", f, domain.ToolStatus)
	}
	if !plausibleID(id) {
		return errorText(notFoundText(id, f))
	}
	ctx, cancel := callerContext(ctx, s.stopping)
	defer cancel()
	a, err := s.q.Status(ctx, id)
	if err != nil {
		return s.errorResult(err, id, f, domain.ToolStatus)
	}
	return okResult(s.q.View(a, true, f))
}

func (s *Server) list(ctx context.Context, args rawArgs, f domain.Family) *sdk.CallToolResult {
	st, err := args.status()
	if err != nil {
		return s.errorResult(err, "", f, domain.ToolList)
	}
	limit, err := args.limit()
	if err != nil {
		return s.errorResult(err, "", f, domain.ToolList)
	}
	ctx, cancel := callerContext(ctx, s.stopping)
	defer cancel()
	as, err := s.q.List(ctx, st, limit)
	if err != nil {
		return s.errorResult(err, "", f, domain.ToolList)
	}
	if len(as) > limit {
		as = as[:limit]
	}
	out := listAnswer{Reviews: make([]domain.View, 0, len(as))}
	for _, a := range as {
		out.Reviews = append(out.Reviews, s.q.View(a, true, f))
	}
	return okResult(out)
}
