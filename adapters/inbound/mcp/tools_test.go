package mcp_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/fakecp"
	"github.com/hoophq/sidecar/ports"
)

var families = []struct {
	name   string
	family domain.Family
}{{"approval", domain.FamilyApproval}, {"review", domain.FamilyReview}}

func TestListsSixReadOnlyToolsWithSchemas(t *testing.T) {
	e := newEnv(t)
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			cs, _ := connect(t, e.url, v)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			byName := map[string]*sdk.Tool{}
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				byName[tool.Name] = tool
			}
			slices.Sort(names)
			want := []string{"approval_list", "approval_status", "approval_wait", "review_list", "review_status", "review_wait"}
			if !slices.Equal(names, want) {
				t.Fatalf("tools %v, want %v", names, want)
			}
			for _, tool := range res.Tools {
				a := tool.Annotations
				if a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
					t.Errorf("%s: annotations %+v, want readOnlyHint true and destructiveHint false", tool.Name, a)
				}
			}
			for _, fam := range []string{"approval", "review"} {
				wait := byName[fam+"_wait"].InputSchema.(map[string]any)
				props := wait["properties"].(map[string]any)
				ts := props["timeout_seconds"].(map[string]any)
				if ts["default"] != float64(60) || ts["maximum"] != float64(300) || ts["minimum"] != float64(1) || ts["type"] != "integer" {
					t.Errorf("%s_wait timeout_seconds schema %v", fam, ts)
				}
				if !slices.Contains(toStrings(wait["required"]), "id") {
					t.Errorf("%s_wait: id is not required: %v", fam, wait)
				}
				list := byName[fam+"_list"].InputSchema.(map[string]any)
				lp := list["properties"].(map[string]any)
				limit := lp["limit"].(map[string]any)
				if limit["default"] != float64(20) || limit["maximum"] != float64(200) || limit["minimum"] != float64(1) {
					t.Errorf("%s_list limit schema %v", fam, limit)
				}
				enum := toStrings(lp["status"].(map[string]any)["enum"])
				if !slices.Equal(enum, []string{"PENDING", "APPROVED", "REJECTED", "REVOKED", "PROCESSING", "EXECUTED", "EXPIRED"}) {
					t.Errorf("%s_list status enum %v", fam, enum)
				}
				status := byName[fam+"_status"].InputSchema.(map[string]any)
				if !slices.Contains(toStrings(status["required"]), "id") {
					t.Errorf("%s_status: id is not required", fam)
				}
			}
			if !strings.Contains(byName["review_wait"].Description, "Earlier name of approval_wait") {
				t.Errorf("review_wait description: %s", byName["review_wait"].Description)
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestStatusAnswersViewWithNextAndFamilyInstruction(t *testing.T) {
	e := newEnv(t)
	id := e.file(t, "fp-status")
	for _, v := range protocolVersions {
		for _, f := range families {
			t.Run(v+"/"+f.name, func(t *testing.T) {
				cs, _ := connect(t, e.url, v)
				m := answer(t, call(t, cs, f.family.Tool(domain.ToolStatus), map[string]any{"id": id}))
				if m["id"] != id || m["status"] != "PENDING" || m["next"] != "wait" || m["listener_name"] != "payments" ||
					m["approval_rule"] != "payments-approvers" || m["decided_at"] != nil {
					t.Fatalf("answer %v", m)
				}
				instr, _ := m["instruction"].(string)
				if !strings.Contains(instr, "call "+f.family.Tool(domain.ToolWait)+" ") {
					t.Fatalf("instruction %q does not name %s", instr, f.family.Tool(domain.ToolWait))
				}
				if _, ok := m["timed_out"]; ok {
					t.Fatalf("status answer carries timed_out: %v", m)
				}
			})
		}
	}
}

func TestStatusAfterApprovalSaysResend(t *testing.T) {
	e := newEnv(t)
	id := e.file(t, "fp-approved")
	if err := e.cp.Decide(id, domain.StatusApproved, ""); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, e.url, "2025-11-25")
	m := answer(t, call(t, cs, "review_status", map[string]any{"id": id}))
	if m["next"] != "resend_identical_statement" || m["decided_at"] == nil ||
		m["instruction"] != "Approved. Resend the identical statement, byte for byte, to listener payments. It runs once." {
		t.Fatalf("answer %v", m)
	}
}

func TestListNewestFirstWithDefaultsAndBounds(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for i := range 25 {
		ids = append(ids, e.file(t, fmt.Sprintf("fp-list-%d", i)))
	}
	if err := e.cp.Decide(ids[3], domain.StatusRejected, "not now"); err != nil {
		t.Fatal(err)
	}
	for _, v := range protocolVersions {
		for _, f := range families {
			t.Run(v+"/"+f.name, func(t *testing.T) {
				cs, _ := connect(t, e.url, v)
				name := f.family.Tool(domain.ToolList)

				m := answer(t, call(t, cs, name, map[string]any{}))
				reviews := m["reviews"].([]any)
				if len(reviews) != 20 {
					t.Fatalf("limit missing: %d reviews, want the default 20", len(reviews))
				}
				if first := reviews[0].(map[string]any); first["id"] != ids[24] {
					t.Fatalf("first is %v, want the newest %s", first["id"], ids[24])
				}
				for _, r := range reviews {
					r := r.(map[string]any)
					if r["next"] == nil || !strings.Contains(r["instruction"].(string), f.family.Tool(domain.ToolWait)) {
						t.Fatalf("list item without next/instruction naming %s: %v", f.family.Tool(domain.ToolWait), r)
					}
				}

				m = answer(t, call(t, cs, name, map[string]any{"limit": 200}))
				if n := len(m["reviews"].([]any)); n != 25 {
					t.Fatalf("limit 200: %d reviews, want all 25", n)
				}
				m = answer(t, call(t, cs, name, map[string]any{"limit": 2, "status": "PENDING"}))
				if n := len(m["reviews"].([]any)); n != 2 {
					t.Fatalf("limit 2: %d reviews", n)
				}
				m = answer(t, call(t, cs, name, map[string]any{"status": "REJECTED"}))
				rs := m["reviews"].([]any)
				if len(rs) != 1 || rs[0].(map[string]any)["id"] != ids[3] || rs[0].(map[string]any)["rejection_reason"] != "not now" {
					t.Fatalf("status REJECTED: %v", rs)
				}
				m = answer(t, call(t, cs, name, map[string]any{"status": "EXPIRED"}))
				if rs := m["reviews"].([]any); len(rs) != 0 {
					t.Fatalf("status EXPIRED: %v", rs)
				}

				for _, bad := range []any{0, 201, -1, 2.5, "20"} {
					msg := toolError(t, call(t, cs, name, map[string]any{"limit": bad}))
					if !strings.Contains(msg, "limit must be an integer from 1 to 200 (20 when omitted)") {
						t.Fatalf("limit %v: %s", bad, msg)
					}
				}
				msg := toolError(t, call(t, cs, name, map[string]any{"status": "DONE"}))
				if !strings.Contains(msg, "status must be one of PENDING, APPROVED, REJECTED, REVOKED, PROCESSING, EXECUTED, EXPIRED") {
					t.Fatalf("bad status: %s", msg)
				}
			})
		}
	}
}

func TestWaitBoundsAndMissingID(t *testing.T) {
	e := newEnv(t)
	id := e.file(t, "fp-bounds")
	cs, _ := connect(t, e.url, "2025-06-18")
	for _, f := range families {
		name := f.family.Tool(domain.ToolWait)
		for _, bad := range []any{301, 0, -5, 1.5} {
			msg := toolError(t, call(t, cs, name, map[string]any{"id": id, "timeout_seconds": bad}))
			if !strings.Contains(msg, "timeout_seconds must be an integer from 1 to 300 (60 when omitted)") || !strings.Contains(msg, name) {
				t.Fatalf("%s timeout_seconds %v: %s", name, bad, msg)
			}
		}
		for _, tool := range []string{name, f.family.Tool(domain.ToolStatus)} {
			for _, args := range []map[string]any{{}, {"id": ""}, {"id": 42}} {
				msg := toolError(t, call(t, cs, tool, args))
				if !strings.Contains(msg, "id is required") {
					t.Fatalf("%s %v: %s", tool, args, msg)
				}
			}
		}
	}
}

func TestErrorAnswersTellTheAgentToStop(t *testing.T) {
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			e := newEnv(t)
			cs, _ := connect(t, e.url, "2025-11-25")
			for _, tool := range []string{f.family.Tool(domain.ToolStatus), f.family.Tool(domain.ToolWait)} {
				for _, id := range []string{"ap-9999", "../../admin", "x y"} {
					msg := toolError(t, call(t, cs, tool, map[string]any{"id": id}))
					if !strings.HasPrefix(msg, "Not found on this Sidecar: approval request "+id+". Stop:") ||
						!strings.Contains(msg, "do not call "+f.family.Tool(domain.ToolWait)) {
						t.Fatalf("%s %q: %s", tool, id, msg)
					}
				}
			}
		})
	}

	older := fakecp.New(nil)
	id := fileOn(t, older, "fp-older")
	older.Fail = ports.ErrOlder // before the server's goroutines start
	e := newEnvWith(t, older, nil)
	cs, _ := connect(t, e.url, "2025-06-18")
	for _, tool := range []string{"approval_status", "approval_wait", "review_status", "approval_list"} {
		msg := toolError(t, call(t, cs, tool, map[string]any{"id": id}))
		if !strings.HasPrefix(msg, "The Control Plane is older than this Sidecar") ||
			!strings.Contains(msg, "Stop: do not resend the statement. A person checks the approval request in the Control Plane.") {
			t.Fatalf("%s older: %s", tool, msg)
		}
	}

	down := fakecp.New(nil)
	id = fileOn(t, down, "fp-down")
	down.Fail = fmt.Errorf("%w: dial tcp 10.1.2.3:8080: connection refused", ports.ErrUnavailable)
	e = newEnvWith(t, down, nil)
	cs, _ = connect(t, e.url, "2025-06-18")
	for _, tool := range []string{"approval_status", "review_wait", "approval_list"} {
		// A wait reads on through an outage until its timeout (app.Watcher).
		msg := toolError(t, call(t, cs, tool, map[string]any{"id": id, "timeout_seconds": 1}))
		if !strings.HasPrefix(msg, "The Control Plane could not report") || strings.Contains(msg, "10.1.2.3") {
			t.Fatalf("%s unavailable: %s", tool, msg)
		}
	}
}

func TestWaitReturnsSoonAfterADecision(t *testing.T) {
	e := newEnv(t)
	for _, v := range protocolVersions {
		for _, f := range families {
			t.Run(v+"/"+f.name, func(t *testing.T) {
				t.Parallel()
				id := e.file(t, "fp-decide-"+v+f.name)
				cs, _ := connect(t, e.url, v)
				decidedAt := make(chan time.Time, 1)
				go func() {
					time.Sleep(2500 * time.Millisecond)
					if err := e.cp.Decide(id, domain.StatusApproved, ""); err != nil {
						t.Error(err)
					}
					decidedAt <- time.Now()
				}()
				m := answer(t, call(t, cs, f.family.Tool(domain.ToolWait), map[string]any{"id": id}))
				took := time.Since(<-decidedAt)
				if took > 2500*time.Millisecond {
					t.Fatalf("answered %v after the decision, want within 2.5 s", took)
				}
				if m["status"] != "APPROVED" || m["next"] != "resend_identical_statement" || m["timed_out"] != false {
					t.Fatalf("answer %v", m)
				}
				if w := m["waited_seconds"].(float64); w < 2 || w > 5 {
					t.Fatalf("waited_seconds %v", w)
				}
			})
		}
	}
}

func TestWaitSendsProgressAndTimesOut(t *testing.T) {
	e := newEnv(t)
	id := e.file(t, "fp-progress")
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			cs, pl := connect(t, e.url, v)
			p := &sdk.CallToolParams{Name: "approval_wait", Arguments: map[string]any{"id": id, "timeout_seconds": 6}}
			token := "tok-" + v
			p.SetProgressToken(token)
			start := time.Now()
			m := answer(t, callWith(t, cs, p, 20*time.Second))
			took := time.Since(start)
			if m["timed_out"] != true || m["status"] != "PENDING" || m["next"] != "wait" {
				t.Fatalf("answer %v", m)
			}
			if w := m["waited_seconds"].(float64); w < 5 || w > 7 || took < 6*time.Second || took > 8*time.Second {
				t.Fatalf("waited_seconds %v, took %v; want about 6 s", w, took)
			}
			if !strings.Contains(m["instruction"].(string), "call approval_wait with this id again") {
				t.Fatalf("instruction %v", m["instruction"])
			}
			if n := pl.count(token); n < 3 {
				t.Fatalf("%d progress notifications in a 6 s wait, want at least 3", n)
			}
			pl.mu.Lock()
			first := pl.when[0].Sub(start)
			pl.mu.Unlock()
			if first > time.Second {
				t.Fatalf("first progress notification after %v, want at once", first)
			}
		})
	}
}
