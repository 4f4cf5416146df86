package slackapp_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/cmd/controlplane/server/servertest"
	"github.com/hoophq/sidecar/cmd/controlplane/slackapp"
)

const secret = "8f742231b10e8888abcd99yyyzzz85a5"

// Slack members of the test workspace.
const (
	alice   = "U0ALICE" // approver alice
	bob     = "U0BOB"   // approver bob
	agent   = "U0AGENT" // approver "agent": the request's own client identity
	mallory = "U0MALLORY"
)

// setup runs a Control Plane with the Slack app against a stand-in, files
// one request (client identity "agent", rule billing-approvers) and waits
// for its message; it returns the request id.
func setup(t *testing.T, policies ...policy.Policy) (*servertest.CP, *standIn, string) {
	slk := newStandIn(t, secret)
	set := policy.Set{Policies: policies, Approvers: map[string]policy.Approver{
		"alice": {Name: "alice"}, "bob": {Name: "bob"}, "agent": {Name: "agent"}}}
	cp := servertest.Start(t, "sqlite", func(o *server.Options) {
		app := slackapp.New(slackapp.Options{BotToken: "xoxb-test", SigningSecret: secret, Channel: channel,
			APIURL: slk.URL + "/api/", PublicURL: "https://cp.example", Store: o.Store, Policies: set,
			SlackUsers: map[string]string{alice: "alice", bob: "bob", agent: "agent"}, Now: o.Now})
		t.Cleanup(func() { app.Close(t.Context()) })
		o.Slack, o.Requested, o.Policies = app, app.Requested, set
	})
	filed := cp.File(servertest.DemoToken, "fp-1", nil)
	id, _ := filed.JSON["id"].(string)
	if filed.Status != http.StatusCreated && filed.Status != http.StatusOK || id == "" {
		t.Fatalf("filing: %d %s", filed.Status, filed.Raw)
	}
	post := slk.waitFor(t, "chat.postMessage", 1)
	if post.Args["channel"] != channel || !strings.Contains(post.Args["blocks"], `"value":"`+id+`"`) ||
		!strings.Contains(post.Args["blocks"], `"action_id":"hoop_approve"`) || !strings.Contains(post.Args["blocks"], `"action_id":"hoop_reject"`) ||
		!strings.Contains(post.Args["blocks"], "billing-api") || !strings.Contains(post.Args["blocks"], "https://cp.example/#r-"+id) {
		t.Fatalf("chat.postMessage without the request's buttons and link: %v", post.Args)
	}
	if strings.Contains(post.Args["blocks"], "DELETE /v1/invoices/42") {
		t.Errorf("the statement was posted without include_statement: %s", post.Args["blocks"])
	}
	return cp, slk, id
}

func status(t *testing.T, cp *servertest.CP, id string) map[string]any {
	t.Helper()
	a := cp.Do(http.MethodGet, "/api/reviews/"+id, servertest.ApproverToken, nil)
	if a.Status != http.StatusOK {
		t.Fatalf("GET review: %d %s", a.Status, a.Raw)
	}
	return a.JSON
}

// Approve: one click decides, and the message then says who approved, with
// the buttons gone.
func TestApproveClick(t *testing.T) {
	cp, slk, id := setup(t)
	if code := slk.click(t, cp.URL, alice, "hoop_approve", id); code != http.StatusOK {
		t.Fatalf("click answered %d", code)
	}
	if r := status(t, cp, id); r["status"] != "APPROVED" || r["decided_by"] != "alice" {
		t.Fatalf("after alice's click: %v", r)
	}
	up := slk.waitFor(t, "chat.update", 1)
	if up.Args["channel"] != channel || up.Args["ts"] != messageTS || !strings.Contains(up.Args["blocks"], "*Approved* by alice") ||
		strings.Contains(up.Args["blocks"], "hoop_approve") {
		t.Errorf("the message was not updated to the decision: %v", up.Args)
	}
}

// Reject opens a modal for the reason; its submission rejects, and the
// message shows who rejected and why.
func TestRejectAsksForAReason(t *testing.T) {
	cp, slk, id := setup(t)
	if code := slk.click(t, cp.URL, bob, "hoop_reject", id); code != http.StatusOK {
		t.Fatalf("click answered %d", code)
	}
	opened := slk.waitFor(t, "views.open", 1)
	if opened.Args["trigger_id"] != `"T-hoop_reject"` || !strings.Contains(opened.Args["view"], `"block_id":"reason"`) {
		t.Fatalf("views.open: %v", opened.Args)
	}
	if r := status(t, cp, id); r["status"] != "PENDING" {
		t.Fatalf("the click alone decided: %v", r)
	}
	if code, body := slk.submit(t, cp.URL, bob, opened, "change freeze until Monday"); code != http.StatusOK || body != "" {
		t.Fatalf("submission answered %d %s", code, body)
	}
	if r := status(t, cp, id); r["status"] != "REJECTED" || r["decided_by"] != "bob" || r["rejection_reason"] != "change freeze until Monday" {
		t.Fatalf("after bob's reason: %v", r)
	}
	up := slk.waitFor(t, "chat.update", 1)
	if !strings.Contains(up.Args["blocks"], "*Rejected* by bob: change freeze until Monday") {
		t.Errorf("the message does not show the rejection: %v", up.Args)
	}
}

// A forged signature and a replayed old timestamp are refused with 401
// before anything else: nothing is decided and Slack is not called.
func TestForgedAndReplayedRefused(t *testing.T) {
	cp, slk, id := setup(t)
	click := map[string]any{"type": "block_actions", "trigger_id": "T1", "user": map[string]any{"id": alice},
		"channel":   map[string]any{"id": channel},
		"container": map[string]any{"type": "message", "message_ts": messageTS},
		"actions":   []any{map[string]any{"action_id": "hoop_approve", "block_id": "decide", "value": id, "type": "button"}}}
	if code, _ := slk.send(t, cp.URL, click, "not-the-signing-secret", time.Now()); code != http.StatusUnauthorized {
		t.Errorf("forged signature answered %d, want 401", code)
	}
	if code, _ := slk.send(t, cp.URL, click, secret, time.Now().Add(-6*time.Minute)); code != http.StatusUnauthorized {
		t.Errorf("a correctly signed request from 6 minutes ago answered %d, want 401", code)
	}
	if r := status(t, cp, id); r["status"] != "PENDING" || len(r["approvals"].([]any)) != 0 {
		t.Errorf("a refused request decided something: %v", r)
	}
	for _, m := range []string{"chat.update", "views.open", "chat.postEphemeral"} {
		if n := len(slk.recorded(m)); n != 0 {
			t.Errorf("a refused request made %d %s calls", n, m)
		}
	}
}

// A Slack user who is no approver decides nothing and is told so.
func TestUnknownSlackUser(t *testing.T) {
	cp, slk, id := setup(t)
	if code := slk.click(t, cp.URL, mallory, "hoop_approve", id); code != http.StatusOK {
		t.Fatalf("click answered %d", code)
	}
	eph := slk.waitFor(t, "chat.postEphemeral", 1)
	if eph.Args["user"] != mallory || !strings.Contains(eph.Args["text"], "no approver") {
		t.Errorf("ephemeral: %v", eph.Args)
	}
	if r := status(t, cp, id); r["status"] != "PENDING" {
		t.Errorf("mallory's click decided: %v", r)
	}
}

// The policy decides a click as it decides the API: self-approval is
// refused, and under a quorum of 2 one click keeps the request PENDING and
// the buttons in place, saying "1 of 2".
func TestPolicyApplies(t *testing.T) {
	cp, slk, id := setup(t, policy.Policy{Rule: "billing-*", MinApprovals: 2, ForbidSelf: true})
	slk.click(t, cp.URL, agent, "hoop_approve", id)
	eph := slk.waitFor(t, "chat.postEphemeral", 1)
	if eph.Args["user"] != agent || !strings.Contains(strings.ToLower(eph.Args["text"]), "own") {
		t.Errorf("self-approval was not refused in words: %v", eph.Args)
	}
	slk.click(t, cp.URL, alice, "hoop_approve", id)
	if r := status(t, cp, id); r["status"] != "PENDING" || len(r["approvals"].([]any)) != 1 {
		t.Fatalf("after agent's and alice's clicks: %v", r)
	}
	up := slk.waitFor(t, "chat.update", 1)
	if !strings.Contains(up.Args["blocks"], "Approved by alice (1 of 2); still PENDING") || !strings.Contains(up.Args["blocks"], "hoop_approve") {
		t.Errorf("the message after 1 of 2: %v", up.Args)
	}
	slk.click(t, cp.URL, bob, "hoop_approve", id)
	if r := status(t, cp, id); r["status"] != "APPROVED" {
		t.Fatalf("after bob's click: %v", r)
	}
	if up := slk.waitFor(t, "chat.update", 2); !strings.Contains(up.Args["blocks"], "*Approved* by alice, bob") {
		t.Errorf("the message after 2 of 2: %v", up.Args)
	}
}

// A policy that needs a reason to approve gets it through the modal too;
// an empty one is refused beside the field, and nothing is decided.
func TestApproveWithRequiredReason(t *testing.T) {
	cp, slk, id := setup(t, policy.Policy{Rule: "*", MinApprovals: 1, ReasonOn: []string{"approve"}, ForbidSelf: true})
	slk.click(t, cp.URL, alice, "hoop_approve", id)
	opened := slk.waitFor(t, "views.open", 1)
	if !strings.Contains(opened.Args["view"], "Approve request") {
		t.Fatalf("views.open: %v", opened.Args)
	}
	code, body := slk.submit(t, cp.URL, alice, opened, "  ")
	if code != http.StatusOK || !strings.Contains(body, `"response_action":"errors"`) || !strings.Contains(body, `"reason":`) {
		t.Fatalf("an empty reason answered %d %s", code, body)
	}
	if r := status(t, cp, id); r["status"] != "PENDING" {
		t.Fatalf("approved without a reason: %v", r)
	}
	if code, body := slk.submit(t, cp.URL, alice, opened, "ticket OPS-42"); code != http.StatusOK || body != "" {
		t.Fatalf("submission answered %d %s", code, body)
	}
	if r := status(t, cp, id); r["status"] != "APPROVED" {
		t.Fatalf("after the reason: %v", r)
	}
}
