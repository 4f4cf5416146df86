package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/domain"
)

// progressEvery is the interval between progress notifications (spec: "a
// progress notification every 2 seconds to a client that asks for them").
const progressEvery = 2 * time.Second

// wait answers approval_wait / review_wait: it reads the approval request
// every 2 s (coalesced with every other waiter on the same id, app.Watcher)
// until a person decides or timeout_seconds ends, and answers the view with
// timed_out and waited_seconds. timeout_seconds is honoured exactly (default
// 60, max 300), whether or not the client sent a progress token (spec,
// "Tools"). A client that hangs up ends the wait at once.
//
// A Control Plane outage during the wait does not end it: the reads go on and
// a decision made meanwhile is answered once the Control Plane is back. If it
// is still failing when timeout_seconds ends, the answer is the tool error
// for an unreachable Control Plane (answers.go), not timed_out: the last
// status read would be stale, and the agent is told the Control Plane fails.
func (s *Server) wait(ctx context.Context, req *sdk.CallToolRequest, args rawArgs, f domain.Family) *sdk.CallToolResult {
	id, err := args.id()
	if err != nil {
		return s.errorResult(err, "", f, domain.ToolWait)
	}
	secs, err := args.timeoutSeconds()
	if err != nil {
		return s.errorResult(err, "", f, domain.ToolWait)
	}
	if !plausibleID(id) {
		return errorText(notFoundText(id, f))
	}
	timeout := time.Duration(secs) * time.Second
	token := req.Params.GetProgressToken()
	wctx, cancel := callerContext(ctx, s.stopping)
	defer cancel()
	if token != nil {
		stop := s.progress(wctx, req, token, id, timeout)
		defer stop()
	}
	a, timedOut, waited, err := s.q.Wait(wctx, id, timeout)
	if errors.Is(err, context.Canceled) && s.stopping.Err() != nil && ctx.Err() == nil {
		// Shutdown ended the wait: answer what is known, so the agent calls again.
		if a.ID == "" {
			return errorText(shuttingDownText)
		}
		timedOut, err = true, nil
	}
	if err != nil {
		return s.errorResult(err, id, f, domain.ToolWait)
	}
	v := s.q.View(a, true, f)
	w := int(waited / time.Second)
	v.TimedOut, v.WaitedSeconds = &timedOut, &w
	return okResult(v)
}

// progress sends a progress notification now (the first one also flushes
// the answer's headers, so the client sees the call alive at once) and then
// every 2 s, until the returned stop is called; stop waits for the sender.
// progress is the number of seconds waited, total the timeout in seconds.
func (s *Server) progress(ctx context.Context, req *sdk.CallToolRequest, token any, id string, timeout time.Duration) (stop func()) {
	start := time.Now()
	send := func() {
		elapsed := time.Since(start)
		err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      elapsed.Seconds(),
			Total:         timeout.Seconds(),
			Message: fmt.Sprintf("waiting for a person to decide approval request %s (%d s of %d s)",
				id, int(elapsed/time.Second), int(timeout/time.Second)),
		})
		if err != nil && ctx.Err() == nil {
			s.log.Debug("mcp: progress notification failed", "approval_id", id, "error", err)
		}
	}
	send()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				send()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
