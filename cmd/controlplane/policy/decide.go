package policy

import (
	"context"
	"fmt"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// Decider applies the policies to an approver's decisions. The approver API
// and the web page both decide through it.
type Decider struct {
	Store store.Store
	Set   Set
}

// Result is a decision taken: the request as it is now, the status it was
// in, and for approve whether this approval was new (Counted false: the
// approver had approved it already, and it counts once).
type Result struct {
	Record  store.Record
	From    domain.Status
	Counted bool
}

// Decide takes action ("approve", "reject" or "revoke") on request id for
// approver with reason (trimmed by the caller; kept for approve and reject).
// Approve records the approval and moves the request to APPROVED only when
// its policy is met (store.Approve); reject and revoke take effect at once.
// Errors: *Refusal (403, 400), *store.ConflictError, store.ErrNotFound, or
// a store failure.
func (d Decider) Decide(ctx context.Context, id, action, reason, approver string, now time.Time) (Result, error) {
	return d.DecideAs(ctx, id, action, reason, d.Set.Approver(approver), now)
}

// DecideAs is Decide for an approver described by the caller rather than
// looked up by name: the web page passes the config's groups plus those of
// an OIDC sign-in's groups claim. a.Name is recorded as who decided.
func (d Decider) DecideAs(ctx context.Context, id, action, reason string, a Approver, now time.Time) (Result, error) {
	approver := a.Name
	to, ok := store.Actions[action]
	if !ok {
		return Result{}, fmt.Errorf("policy: unknown action %q", action)
	}
	rec, err := d.Store.Get(ctx, id, now)
	if err != nil {
		return Result{}, err
	}
	p := d.Set.For(rec.ApprovalRule)
	if r := p.Check(a, action, reason, rec.ID, rec.ClientIdentity); r != nil {
		return Result{Record: rec}, r
	}
	if to != domain.StatusApproved {
		rec, from, err := d.Store.Decide(ctx, id, to, reason, approver, now)
		return Result{Record: rec, From: from}, err
	}
	v := store.Vote{Approver: approver, Groups: p.GroupsOf(a), At: now.UTC().Truncate(time.Second), Reason: reason}
	rec, from, counted, err := d.Store.Approve(ctx, id, v, p.Met, now)
	return Result{Record: rec, From: from, Counted: counted}, err
}

// Required is how many approvals rec's policy needs.
func (d Decider) Required(rec store.Record) int { return d.Set.For(rec.ApprovalRule).Required() }

// MissingGroups lists the groups rec's policy still needs an approval from
// (all_groups_must_approve) while rec is PENDING; nil otherwise.
func (d Decider) MissingGroups(rec store.Record) []string {
	if rec.Status != domain.StatusPending {
		return nil
	}
	return d.Set.For(rec.ApprovalRule).MissingGroups(rec.Approvals)
}

// ReasonOn reports whether rec's policy needs a reason for action.
func (d Decider) ReasonOn(rec store.Record, action string) bool {
	for _, a := range d.Set.For(rec.ApprovalRule).ReasonOn {
		if a == action {
			return true
		}
	}
	return false
}
