package httplistener_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// A wait-mode request still waiting for a person when the Sidecar shuts
// down is answered at once with 503, Connection: close and the approval's
// headers; the upstream never sees it.
func TestShutdownEndsAWaitWith503(t *testing.T) {
	up, rec := newUpstream(t, nil)
	sc := newSidecar(true)
	addr := sc.serve(t, app.ListenerSettings{Name: "api", Upstream: up.URL, Mode: app.ModeWait,
		WaitTimeout: time.Minute, Approvals: []domain.ApprovalRule{deleteRule(t)}})
	go func() {
		for len(sc.CP.Records()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		sc.Core.Gate.BeginShutdown()
	}()
	resp, body := send(t, "DELETE", "http://"+addr+"/v1/items/5", "")
	if resp.StatusCode != 503 || resp.Header.Get("X-Hoop-Denied") != "review" || resp.Header.Get("X-Hoop-Approval-Id") == "" ||
		resp.Header.Get("X-Hoop-Approval-Status") != "PENDING" || !resp.Close || !strings.Contains(body, "shutting down") {
		t.Fatalf("wait at shutdown: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	if rec.count("DELETE", "/v1/items/5") != 0 {
		t.Fatal("the upstream saw the request")
	}
}
