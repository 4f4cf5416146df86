// Package fakecp is an in-memory ports.ControlPlane with the semantics of
// docs/control-plane-api.md (reuse rule, atomic claim, settle, expiry, scoping
// by Sidecar), plus approver actions, for unit tests of the core and of
// protocol adapters. Conformance suites use the reference Control Plane
// (cmd/controlplane) instead.
package fakecp

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// Record is a stored approval with the fields only the Control Plane sees.
type Record struct {
	domain.Approval
	Fingerprint string
	Statement   string
	Protocol    string
	Identity    string
	// ClaimKey is the key of the claim that last won it.
	ClaimKey ports.ClaimKey
}

// CP is the fake. The zero value is not usable; call New.
type CP struct {
	mu   sync.Mutex
	seq  int
	recs []*Record
	// givenBack holds, per approval id, the keys whose claims were given
	// back: they never win again (the reference Control Plane's rule).
	givenBack map[string]map[ports.ClaimKey]bool
	now       func() time.Time
	// Fail, when set, is returned by every call (e.g. ports.ErrUnavailable).
	Fail error
	// Gets counts Get calls (to check coalescing).
	Gets atomic.Int64
	// HideStatusOnFile makes File answer without a status.
	HideStatusOnFile bool
	// LoseClaimAnswers is how many of the next claims are applied with
	// their answer lost: each returns ports.ErrUnavailable as a dropped
	// answer would (set it under no other call).
	LoseClaimAnswers atomic.Int64
	// LoseSettleAnswers is how many of the next settles are applied with
	// their answer lost (ports.ErrUnavailable), as LoseClaimAnswers.
	LoseSettleAnswers atomic.Int64
	// Renews counts Renew calls.
	Renews atomic.Int64
	// RenewLease is the lease length Renew answers (0: none).
	RenewLease time.Duration
	// Keyless makes the fake a Control Plane older than claim keys: it
	// ignores every key (no claim wins twice, a settle applies to whatever
	// claim holds the request) and KeepsClaimKeys is false.
	Keyless bool
}

// KeepsClaimKeys implements ports.ClaimKeyKeeper: true unless Keyless.
func (c *CP) KeepsClaimKeys() bool { return !c.Keyless }

// EchoedClaimKey implements ports.ClaimKeyKeeper: true unless Keyless (the
// fake answers every won claim with its key).
func (c *CP) EchoedClaimKey(key ports.ClaimKey) bool { return !c.Keyless && key != "" }

// New returns an empty fake using now as its clock (time.Now when nil).
func New(now func() time.Time) *CP {
	if now == nil {
		now = time.Now
	}
	return &CP{now: now}
}

func (c *CP) find(id string) *Record {
	for _, r := range c.recs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func (c *CP) effective(r *Record) domain.Approval {
	a := r.Approval
	if st := a.EffectiveStatus(c.now()); st != a.Status {
		a.Status = st
		a.DecidedAt = a.ExpiresAt
	}
	return a
}

// File implements ports.ControlPlane.
func (c *CP) File(_ context.Context, r ports.FileRequest) (ports.Filed, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Fail != nil {
		return ports.Filed{}, c.Fail
	}
	for i := len(c.recs) - 1; i >= 0; i-- {
		if c.recs[i].Fingerprint == r.Fingerprint {
			a := c.effective(c.recs[i])
			if domain.Reusable(a.Status) {
				return ports.Filed{Approval: a, Reused: true, StatusKnown: !c.HideStatusOnFile}, nil
			}
			break
		}
	}
	c.seq++
	now := c.now().UTC().Truncate(time.Second)
	rec := &Record{Approval: domain.Approval{ID: fmt.Sprintf("ap-%04d", c.seq), Status: domain.StatusPending,
		ListenerName: r.ListenerName, ApprovalRule: r.ApprovalRule, CreatedAt: now},
		Fingerprint: r.Fingerprint, Statement: r.Statement, Protocol: r.Protocol, Identity: r.ClientIdentity}
	if r.TimeLimit > 0 {
		e := now.Add(r.TimeLimit)
		rec.ExpiresAt = &e
	}
	c.recs = append(c.recs, rec)
	return ports.Filed{Approval: rec.Approval, StatusKnown: !c.HideStatusOnFile}, nil
}

// Get implements ports.ControlPlane.
func (c *CP) Get(_ context.Context, id string) (domain.Approval, error) {
	c.Gets.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Fail != nil {
		return domain.Approval{}, c.Fail
	}
	r := c.find(id)
	if r == nil {
		return domain.Approval{}, ports.ErrNotFound
	}
	return c.effective(r), nil
}

// List implements ports.ControlPlane.
func (c *CP) List(_ context.Context, status domain.Status, limit int) ([]domain.Approval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Fail != nil {
		return nil, c.Fail
	}
	var out []domain.Approval
	for i := len(c.recs) - 1; i >= 0 && len(out) < limit; i-- {
		a := c.effective(c.recs[i])
		if status == "" || a.Status == status {
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, nil
}

// Claim implements ports.ControlPlane, with the reference Control Plane's
// claim keys: a claim whose key won already, of a request still in the
// status it moved it to and within its time limit, wins again; a key whose
// claim was given back never wins.
func (c *CP) Claim(_ context.Context, id, fp string, spend ports.SpendOn, key ports.ClaimKey) (domain.Approval, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Fail != nil {
		return domain.Approval{}, false, c.Fail
	}
	r := c.find(id)
	if r == nil {
		return domain.Approval{}, false, ports.ErrNotFound
	}
	if c.Keyless {
		key = ""
	}
	to := domain.StatusExecuted
	if spend == ports.SpendOnAccepted {
		to = domain.StatusProcessing
	}
	a := c.effective(r)
	won := a.Status == domain.StatusApproved && r.Fingerprint == fp && (key == "" || !c.givenBack[id][key])
	if won {
		r.Status, r.ClaimKey = to, key
		a = r.Approval
	} else {
		won = key != "" && r.ClaimKey == key && r.Fingerprint == fp && a.Status == to &&
			(a.ExpiresAt == nil || c.now().Before(*a.ExpiresAt))
	}
	if c.LoseClaimAnswers.Load() > 0 {
		c.LoseClaimAnswers.Add(-1)
		return domain.Approval{}, false, fmt.Errorf("fakecp: claim answer dropped: %w", ports.ErrUnavailable)
	}
	return a, won, nil
}

// Settle implements ports.ControlPlane: key, when not "", must be the
// winning claim's; a settle repeated after it took effect answers again.
func (c *CP) Settle(_ context.Context, id string, key ports.ClaimKey, accepted bool) (domain.Approval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Fail != nil {
		return domain.Approval{}, c.Fail
	}
	r := c.find(id)
	if r == nil {
		return domain.Approval{}, ports.ErrNotFound
	}
	if c.Keyless {
		key = ""
	}
	to := domain.StatusApproved
	if accepted {
		to = domain.StatusExecuted
	}
	mine := key == "" || r.ClaimKey == key
	if r.Status != domain.StatusProcessing || !mine {
		if key != "" && mine && r.Status == to {
			return r.Approval, nil
		}
		return r.Approval, ports.ErrConflict
	}
	r.Status = to
	if !accepted && key != "" {
		if c.givenBack == nil {
			c.givenBack = make(map[string]map[ports.ClaimKey]bool)
		}
		if c.givenBack[id] == nil {
			c.givenBack[id] = make(map[ports.ClaimKey]bool)
		}
		c.givenBack[id][key] = true
	}
	if c.LoseSettleAnswers.Load() > 0 {
		c.LoseSettleAnswers.Add(-1)
		return domain.Approval{}, fmt.Errorf("fakecp: settle answer dropped: %w", ports.ErrUnavailable)
	}
	return r.Approval, nil
}

// Renew implements ports.Renewer: the request must be PROCESSING under key.
// The fake keeps no lease of its own; it answers RenewLease.
func (c *CP) Renew(_ context.Context, id string, key ports.ClaimKey) (time.Duration, error) {
	c.Renews.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Fail != nil {
		return 0, c.Fail
	}
	r := c.find(id)
	if r == nil {
		return 0, ports.ErrNotFound
	}
	if r.Status != domain.StatusProcessing || (!c.Keyless && r.ClaimKey != key) {
		return 0, ports.ErrConflict
	}
	return c.RenewLease, nil
}

// Decide is the approver's side: move id to st (APPROVED, REJECTED,
// REVOKED) with an optional reason, following the domain's transitions.
func (c *CP) Decide(id string, st domain.Status, reason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.find(id)
	if r == nil {
		return ports.ErrNotFound
	}
	if _, err := domain.Transition(r.Status, st); err != nil {
		return err
	}
	now := c.now().UTC().Truncate(time.Second)
	r.Status, r.DecidedAt, r.RejectionReason = st, &now, reason
	return nil
}

// Records returns a copy of every record, oldest first.
func (c *CP) Records() []Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Record, len(c.recs))
	for i, r := range c.recs {
		out[i] = *r
	}
	return out
}
