package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hoophq/sidecar/domain"
)

// maxApproveTries bounds Approve's read-and-compare-and-set rounds: each
// lost round means another approval landed first, so only a crowd of
// approvers on one request reaches it.
const maxApproveTries = 20

// Approve implements Store. It reads the request, appends v to its
// approvals and writes them (and APPROVED when met) with an UPDATE
// conditioned on the status being PENDING, the time limit holding and the
// approvals being the ones it read: a concurrent approval makes the update
// miss, and it reads again, so no approval is lost and the move to APPROVED
// happens once.
func (s *sqlStore) Approve(ctx context.Context, id string, v Vote, met func([]Vote) bool, now time.Time) (Record, domain.Status, bool, error) {
	id = text(id)
	v.Approver, v.Reason = text(v.Approver), text(v.Reason)
	for range maxApproveTries {
		cur, err := s.Get(ctx, id, now)
		if err != nil {
			return Record{}, "", false, err
		}
		if cur.Status != domain.StatusPending {
			return cur, cur.Status, false, &ConflictError{Current: cur, Want: domain.StatusPending, To: domain.StatusApproved}
		}
		for _, old := range cur.Approvals {
			if old.Approver == v.Approver {
				return cur, cur.Status, false, nil
			}
		}
		votes := append(append([]Vote{}, cur.Approvals...), v)
		after, err := encodeVotes(votes)
		if err != nil {
			return Record{}, "", false, err
		}
		set, args := `approvals = ?`, []any{after}
		if met(votes) {
			set += `, status = 'APPROVED', decided_at = ?, decided_by = ?`
			args = append(args, sec(now), v.Approver)
		}
		args = append(args, id, cur.approvalsText, sec(now))
		r, err := s.changeAndAnnounce(ctx, `UPDATE hoop_approvals SET `+set+`
			WHERE id = ? AND status = 'PENDING' AND approvals = ? AND `+notExpired+` RETURNING `+columns, args, now)
		if err == nil {
			return r.Effective(now), domain.StatusPending, true, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return Record{}, "", false, err
		}
		// Another approval or decision landed since the read: read again.
	}
	return Record{}, "", false, fmt.Errorf("store: approve %s: the request kept changing; try again", id)
}

// encodeVotes is the approvals column's text: "" for none (the column's
// default), else a JSON array.
func encodeVotes(vs []Vote) (string, error) {
	if len(vs) == 0 {
		return "", nil
	}
	b, err := json.Marshal(vs)
	if err != nil {
		return "", fmt.Errorf("store: approvals: %w", err)
	}
	return string(b), nil
}

func decodeVotes(s string) ([]Vote, error) {
	if s == "" {
		return nil, nil
	}
	var vs []Vote
	if err := json.Unmarshal([]byte(s), &vs); err != nil {
		return nil, err
	}
	return vs, nil
}
