package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

// FuzzToolInputs sends any JSON as the arguments of every tool. The status
// and list tools answer through the in-memory Control Plane (one PENDING
// approval on file); for the wait tool only the inputs are read (a wait
// on a real id would last timeout_seconds). Every argument error is an
// inputError, every value accepted lies inside the bounds the spec gives
// (timeout_seconds 1..300, limit 1..200, a known status or every status, a
// non-empty id), and an answer is never a Go error or a panic.
func FuzzToolInputs(f *testing.F) {
	cp := fakecp.New(nil)
	if _, err := cp.File(context.Background(), ports.FileRequest{Fingerprint: "fp", ListenerName: "l", ApprovalRule: "r",
		Statement: "DELETE FROM t"}); err != nil {
		f.Fatal(err)
	}
	core := app.NewCore(app.CoreOptions{Sidecar: "fuzz", CP: cp})
	s, err := New(Options{Listen: "127.0.0.1:0", Approvals: core.Approvals})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		args, err := parseArgs(json.RawMessage(raw))
		if err != nil {
			var ie *inputError
			if !errors.As(err, &ie) {
				t.Fatalf("parseArgs(%q): %v is not an input error", raw, err)
			}
			return
		}
		if id, err := args.id(); err == nil && (id == "" || id != strings.TrimSpace(id)) {
			t.Fatalf("id %q accepted from %q", id, raw)
		}
		if n, err := args.timeoutSeconds(); err == nil && (n < 1 || n > app.MaxWaitSeconds) {
			t.Fatalf("timeout_seconds %d accepted from %q", n, raw)
		}
		if n, err := args.limit(); err == nil && (n < 1 || n > app.MaxListLimit) {
			t.Fatalf("limit %d accepted from %q", n, raw)
		}
		if st, err := args.status(); err == nil && st != "" && !st.IsKnown() {
			t.Fatalf("status %q accepted from %q", st, raw)
		}
		for _, k := range []domain.ToolKind{domain.ToolStatus, domain.ToolList} {
			req := &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Arguments: json.RawMessage(raw)}}
			if res := s.call(context.Background(), req, domain.FamilyApproval, k); res == nil || len(res.Content) == 0 {
				t.Fatalf("tool %d answered %q with nothing", k, raw)
			}
		}
	})
}
