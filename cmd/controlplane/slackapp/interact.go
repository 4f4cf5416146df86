package slackapp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/slack-go/slack"

	"github.com/hoophq/sidecar/cmd/controlplane/policy"
	"github.com/hoophq/sidecar/cmd/controlplane/store"
)

// maxReason bounds a reason (characters), as the approver API does.
const maxReason = 2000

// meta is what the reason modal carries (private_metadata) from the click
// to its submission: which request, which action, and the message to update.
type meta struct {
	ID      string `json:"id"`
	Action  string `json:"action"`
	Channel string `json:"channel"`
	TS      string `json:"ts"`
}

// ServeHTTP is the interactivity endpoint (POST, form field "payload").
// The signature is checked first: a missing, forged or stale one is
// answered 401 and nothing else happens. Then a block_actions click on
// Approve decides at once, unless the policy needs a reason; Reject (and a
// reasoned Approve) opens a modal, whose view_submission decides. A Slack
// user who is no approver, or whom the policy refuses, is told so in an
// ephemeral message (or beside the modal's reason field); nothing is decided.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := verified(r, a.o.SigningSecret)
	if err != nil {
		a.o.Logger.Warn("slack: interactivity request refused", "remote", r.RemoteAddr, "err", err)
		http.Error(w, "invalid Slack request signature", http.StatusUnauthorized)
		return
	}
	form, err := url.ParseQuery(string(body))
	var cb slack.InteractionCallback
	if err == nil {
		err = json.Unmarshal([]byte(form.Get("payload")), &cb)
	}
	if err != nil {
		http.Error(w, "not a Slack interaction payload", http.StatusBadRequest)
		return
	}
	switch cb.Type {
	case slack.InteractionTypeBlockActions:
		a.clicked(r.Context(), cb)
		w.WriteHeader(http.StatusOK)
	case slack.InteractionTypeViewSubmission:
		a.submitted(w, r.Context(), cb)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// clicked handles a button.
func (a *App) clicked(ctx context.Context, cb slack.InteractionCallback) {
	if len(cb.ActionCallback.BlockActions) == 0 {
		a.o.Logger.Warn("slack: a click without a Block Kit action; ignored", "user", cb.User.ID)
		return
	}
	act := cb.ActionCallback.BlockActions[0]
	m := meta{ID: act.Value, Channel: cb.Channel.ID, TS: cb.Container.MessageTs}
	if m.TS == "" {
		m.TS = cb.Message.Timestamp
	}
	switch act.ActionID {
	case actionApprove:
		m.Action = "approve"
	case actionReject:
		m.Action = "reject"
	default:
		return
	}
	name, ok := a.o.SlackUsers[cb.User.ID]
	if !ok {
		a.tell(ctx, m, cb.User.ID, "Your Slack user ("+cb.User.ID+") is no approver of this Control Plane (approvers[].slack_user in its config); nothing was decided.")
		return
	}
	if m.Action == "reject" || a.needsReason(ctx, m) {
		b, _ := json.Marshal(m)
		if _, err := a.api.OpenViewContext(ctx, cb.TriggerID, reasonModal(m.Action, m.ID, string(b))); err != nil {
			a.o.Logger.Error("slack: cannot open the reason modal", "id", m.ID, "approver", name, "err", err)
		}
		return
	}
	if msg := a.decide(ctx, m, name, ""); msg != "" {
		a.tell(ctx, m, cb.User.ID, msg)
	}
}

// submitted handles the reason modal: it answers Slack's view_submission
// with nothing (the modal closes) or with the refusal beside the reason.
func (a *App) submitted(w http.ResponseWriter, ctx context.Context, cb slack.InteractionCallback) {
	var m meta
	if cb.View.CallbackID != modalCallback || json.Unmarshal([]byte(cb.View.PrivateMetadata), &m) != nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	name, ok := a.o.SlackUsers[cb.User.ID]
	msg := "Your Slack user is no approver of this Control Plane; nothing was decided."
	if ok {
		reason := strings.TrimSpace(cb.View.State.Values[reasonBlock][reasonBlock].Value)
		msg = a.decide(ctx, m, name, reason)
	}
	if msg == "" {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(slack.NewErrorsViewSubmissionResponse(map[string]string{reasonBlock: msg}))
}

// needsReason reports whether the policy of m's request needs a reason for
// m.Action (an unreadable request needs none: deciding will say why not).
func (a *App) needsReason(ctx context.Context, m meta) bool {
	rec, err := a.o.Store.Get(ctx, m.ID, a.o.Now())
	return err == nil && a.dec.ReasonOn(rec, m.Action)
}

// decide applies m.Action for approver name through the policies and
// updates the message; it returns what to tell the person when nothing was
// decided ("" when something was).
func (a *App) decide(ctx context.Context, m meta, name, reason string) string {
	if len([]rune(reason)) > maxReason {
		return "The reason is longer than 2000 characters."
	}
	res, err := a.dec.Decide(ctx, m.ID, m.Action, reason, name, a.o.Now())
	var refusal *policy.Refusal
	var ce *store.ConflictError
	switch {
	case errors.As(err, &refusal):
		a.o.Logger.Info("slack: decision refused", "id", m.ID, "action", m.Action, "approver", name, "code", refusal.Code)
		return refusal.Message
	case errors.As(err, &ce):
		a.update(ctx, m, ce.Current)
		return "Cannot " + m.Action + ": the request is " + string(ce.Current.Status) + " already."
	case errors.Is(err, store.ErrNotFound):
		return "This request is not in the Control Plane's store."
	case err != nil:
		a.o.Logger.Error("slack: decision failed", "id", m.ID, "action", m.Action, "approver", name, "err", err)
		return "The Control Plane could not record the decision; try again."
	}
	a.o.Logger.Info("approval decided", "id", m.ID, "action", m.Action, "from", res.From, "to", res.Record.Status,
		"approver", name, "via", "slack", "approvals", len(res.Record.Approvals))
	a.update(ctx, m, res.Record)
	if m.Action == "approve" && !res.Counted {
		return "You had approved this request already; it counts once."
	}
	return ""
}

// update rewrites the request's message to show rec as it is now.
func (a *App) update(ctx context.Context, m meta, rec store.Record) {
	if m.Channel == "" || m.TS == "" {
		return
	}
	text, blocks := message(rec, a.o.PublicURL, a.o.IncludeStatement, a.dec.Required(rec))
	if _, _, _, err := a.api.UpdateMessageContext(ctx, m.Channel, m.TS, slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...)); err != nil {
		a.o.Logger.Error("slack: cannot update the message", "id", rec.ID, "err", err)
	}
}

// tell shows msg to user alone, in the request's channel.
func (a *App) tell(ctx context.Context, m meta, user, msg string) {
	if _, err := a.api.PostEphemeralContext(ctx, m.Channel, user, slack.MsgOptionText(msg, false)); err != nil {
		a.o.Logger.Error("slack: cannot post an ephemeral message", "id", m.ID, "err", err)
	}
}
