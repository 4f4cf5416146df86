package mcpconf

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitCall is one approval_wait call running in the background.
type waitCall struct {
	res *sdk.CallToolResult
	err error
}

// startWait calls approval_wait on id with timeout_seconds in the
// background (a progress token when token is not ""); the answer arrives on
// the returned channel. limit bounds the call on the client side.
func startWait(cs *sdk.ClientSession, id string, timeoutSeconds int, token string, limit time.Duration) <-chan waitCall {
	out := make(chan waitCall, 1)
	go func() {
		p := &sdk.CallToolParams{Name: "approval_wait", Arguments: map[string]any{"id": id, "timeout_seconds": timeoutSeconds}}
		if token != "" {
			p.SetProgressToken(token)
		}
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		res, err := cs.CallTool(ctx, p)
		out <- waitCall{res, err}
	}()
	return out
}

// decode returns the answer's JSON object, failing on a tool or call error.
func (c waitCall) decode(t *testing.T) map[string]any {
	t.Helper()
	if c.err != nil {
		t.Fatalf("approval_wait: %v", c.err)
	}
	text := c.res.Content[0].(*sdk.TextContent).Text
	if c.res.IsError {
		t.Fatalf("approval_wait: tool error: %s", text)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("approval_wait: %v: %s", err, text)
	}
	return m
}

// A 40 s approval_wait outlives a Control Plane crash: the Control Plane is
// killed 2 s into the wait and started again 5 s later on the same address
// and store, a person approves with the CLI, and the wait answers APPROVED
// (issue 13: one failed read used to end every wait on the approval).
func TestWaitAnswersTheDecisionAfterTheControlPlaneRestarts(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	calls := map[string]<-chan waitCall{}
	ids := map[string]string{}
	for _, v := range protocolVersions {
		ids[v] = s.file(t, "fp-restart-"+v)
		token := ""
		if v == protocolVersions[0] {
			token = "restart" // one with progress notifications, one without
		}
		calls[v] = startWait(connect(t, s.url(), v), ids[v], 40, token, 60*time.Second)
	}
	time.Sleep(2 * time.Second)
	s.cp.Kill()
	time.Sleep(5 * time.Second)
	s.cp.Restart(t)
	for _, v := range protocolVersions {
		s.cp.Approve(t, ids[v])
	}
	for _, v := range protocolVersions {
		m := (<-calls[v]).decode(t)
		if m["status"] != "APPROVED" || m["next"] != "resend_identical_statement" || m["timed_out"] != false || m["id"] != ids[v] {
			t.Fatalf("%s: answer %v, want APPROVED", v, m)
		}
	}
}

// A Control Plane that stays down until the end of the wait is answered with
// the tool error for an unreachable Control Plane (docs/mcp.md), not with a
// stale status.
func TestWaitOnAControlPlaneThatStaysDownAnswersTheUnavailableError(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	id := s.file(t, "fp-down")
	cs := connect(t, s.url(), protocolVersions[1])
	call := startWait(cs, id, 6, "", 30*time.Second)
	time.Sleep(2 * time.Second) // a status is read, then the Control Plane goes
	s.cp.Kill()
	c := <-call
	if c.err != nil {
		t.Fatalf("approval_wait: %v", c.err)
	}
	text := c.res.Content[0].(*sdk.TextContent).Text
	if !c.res.IsError || !strings.HasPrefix(text, "The Control Plane could not report approval request "+id+" right now") ||
		!strings.Contains(text, "Call approval_wait again in a minute") || strings.Contains(text, s.cp.URL) {
		t.Fatalf("answer (error %v): %s", c.res.IsError, text)
	}
}

// approval_wait with timeout_seconds 60 and no progress token waits the 60 s
// asked (the spec's default; the Sidecar used to cut such a wait at 50 s).
func TestWaitWithoutProgressTokenWaitsTheWholeTimeout(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	id := s.file(t, "fp-sixty")
	cs := connect(t, s.url(), protocolVersions[0])
	m := (<-startWait(cs, id, 60, "", 90*time.Second)).decode(t)
	if m["timed_out"] != true || m["waited_seconds"] != float64(60) || m["status"] != "PENDING" || m["next"] != "wait" {
		t.Fatalf("answer %v, want timed_out after waited_seconds 60", m)
	}
}
