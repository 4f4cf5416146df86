package mcp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// 200 agents waiting on one approval for 10 s cost at most one Control Plane
// read per 2 s interval: 6 at most when the calls start together, one more
// per 2 s that starting them took on a loaded machine.
func TestTwoHundredWaitsReadTheApprovalAtMostSixTimes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.file(t, "fp-coalesce")
	const sessions, perSession = 10, 20
	before := e.cp.Gets.Load()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan string, sessions*perSession)
	for s := range sessions {
		cs, _ := connect(t, e.url, protocolVersions[s%2])
		for c := range perSession {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := &sdk.CallToolParams{Name: []string{"approval_wait", "review_wait"}[c%2],
					Arguments: map[string]any{"id": id, "timeout_seconds": 10}}
				if c%4 < 2 {
					p.SetProgressToken(fmt.Sprintf("t-%d-%d", s, c))
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				res, err := cs.CallTool(ctx, p)
				if err != nil {
					errs <- err.Error()
					return
				}
				if res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, `"timed_out":true`) {
					errs <- fmt.Sprintf("answer %v", res.Content[0])
				}
			}()
		}
	}
	wg.Wait()
	span := time.Since(start)
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	limit := max(int64(span/(2*time.Second))+1, 6)
	if reads := e.cp.Gets.Load() - before; reads > limit || reads < 1 {
		t.Fatalf("200 waits of 10 s (all done within %v) read the approval %d times, want 1..%d", span, reads, limit)
	}
}

// Agents that hang up stop costing anything, also on protocol versions whose
// hang-up does not cancel the tool handler's context: raw HTTP requests are
// dropped after 1 s, and the Control Plane sees no read after that.
func TestCallersThatHangUpCauseNoReadsAfterTheyLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.file(t, "fp-hangup")
	before := e.cp.Gets.Load()
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			meta := ""
			if i%2 == 0 {
				meta = fmt.Sprintf(`,"_meta":{"progressToken":"h%d"}`, i)
			}
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"approval_wait","arguments":{"id":%q,"timeout_seconds":60}%s}}`, i+1, id, meta)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", protocolVersions[i%2])
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body) // until the hang-up at 1 s
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	time.Sleep(100 * time.Millisecond) // the server notices the closed connections
	left := e.cp.Gets.Load()
	if left-before != 1 {
		t.Fatalf("%d reads while 50 callers waited 1 s, want 1 (coalesced)", left-before)
	}
	time.Sleep(4500 * time.Millisecond) // two more read intervals
	if after := e.cp.Gets.Load(); after != left {
		t.Fatalf("%d reads after every caller hung up, want none", after-left)
	}
}
