package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/conformance/pact/contract"
	"github.com/hoophq/sidecar/domain"
)

// approverName decides the seeded requests.
const approverName = contract.ApproverName

// seedFunc sets up one provider state on an empty store st at now, with the
// state's parameters, and returns the values the verifier injects into the
// request (contract.ValueID), or nil.
type seedFunc func(ctx context.Context, st store.Store, now time.Time, params map[string]any) (map[string]any, error)

// seeds maps each provider state to its set-up. StateOlder seeds nothing;
// Provider switches the handler to one without X-Hoop-Api-Version.
var seeds = map[string]seedFunc{
	contract.StateEmpty: func(context.Context, store.Store, time.Time, map[string]any) (map[string]any, error) {
		return nil, nil
	},
	contract.StateOlder: func(context.Context, store.Store, time.Time, map[string]any) (map[string]any, error) {
		return nil, nil
	},
	contract.StateSmallBody: func(context.Context, store.Store, time.Time, map[string]any) (map[string]any, error) {
		return nil, nil
	},
	contract.StatePending:      seedOne(contract.SidecarName, 0, 0, nil),
	contract.StateApproved:     seedOne(contract.SidecarName, 0, 0, approve),
	contract.StateRejected:     seedOne(contract.SidecarName, 0, 0, reject),
	contract.StateRevoked:      seedOne(contract.SidecarName, 0, 0, revoke),
	contract.StateExpired:      seedOne(contract.SidecarName, 2*time.Hour, 30*time.Minute, nil),
	contract.StateProcessing:   seedOne(contract.SidecarName, 0, 0, claimAs(domain.StatusProcessing)),
	contract.StateExecuted:     seedOne(contract.SidecarName, 0, 0, claimAs(domain.StatusExecuted)),
	contract.StateOtherSidecar: seedOne(contract.OtherSidecarName, 0, 0, nil),
	contract.StateList:         seedList,
}

// then moves a freshly filed request on (approve, reject, claim).
type then func(ctx context.Context, st store.Store, rec store.Record, now time.Time, params map[string]any) error

// seedOne files one request for sidecar with the state's fingerprint, ago
// before now and with time limit limit (0 = none), then runs next.
func seedOne(sidecar string, ago, limit time.Duration, next then) seedFunc {
	return func(ctx context.Context, st store.Store, now time.Time, params map[string]any) (map[string]any, error) {
		fp, err := stringParam(params, contract.ParamFingerprint)
		if err != nil {
			return nil, err
		}
		rec, err := file(ctx, st, sidecar, fp, limit, now.Add(-ago))
		if err != nil {
			return nil, err
		}
		if next != nil {
			if err := next(ctx, st, rec, now, params); err != nil {
				return nil, err
			}
		}
		return map[string]any{contract.ValueID: rec.ID}, nil
	}
}

func file(ctx context.Context, st store.Store, sidecar, fingerprint string, limit time.Duration, at time.Time) (store.Record, error) {
	d := contract.FileDefaults
	rec, reused, err := st.File(ctx, sidecar, store.FileInput{Fingerprint: fingerprint, ListenerName: d.ListenerName,
		ApprovalRule: d.ApprovalRule, Statement: d.Statement, Protocol: d.Protocol, ClientIdentity: d.ClientIdentity,
		TimeLimit: limit}, at)
	if err == nil && reused {
		err = fmt.Errorf("provider state: fingerprint %q was already filed on a fresh store", fingerprint)
	}
	return rec, err
}

func approve(ctx context.Context, st store.Store, rec store.Record, now time.Time, _ map[string]any) error {
	_, _, err := st.Decide(ctx, rec.ID, domain.StatusApproved, "", approverName, now)
	return err
}

func reject(ctx context.Context, st store.Store, rec store.Record, now time.Time, params map[string]any) error {
	reason, err := stringParam(params, contract.ParamReason)
	if err != nil {
		return err
	}
	_, _, err = st.Decide(ctx, rec.ID, domain.StatusRejected, reason, approverName, now)
	return err
}

func revoke(ctx context.Context, st store.Store, rec store.Record, now time.Time, params map[string]any) error {
	if err := approve(ctx, st, rec, now, params); err != nil {
		return err
	}
	_, _, err := st.Decide(ctx, rec.ID, domain.StatusRevoked, "", approverName, now)
	return err
}

// claimAs approves the request and claims it with contract.ClaimKey,
// moving it to `to`.
func claimAs(to domain.Status) then {
	return func(ctx context.Context, st store.Store, rec store.Record, now time.Time, params map[string]any) error {
		if err := approve(ctx, st, rec, now, params); err != nil {
			return err
		}
		_, won, err := st.Claim(ctx, rec.Sidecar, rec.ID, rec.Fingerprint, contract.ClaimKey, to, now)
		if err == nil && !won {
			err = fmt.Errorf("provider state: claiming %s to %s lost on a fresh store", rec.ID, to)
		}
		return err
	}
}

// seedList files contract.ListPending PENDING requests, then one APPROVED
// and one REJECTED, a minute apart.
func seedList(ctx context.Context, st store.Store, now time.Time, _ map[string]any) (map[string]any, error) {
	at := now.Add(-time.Hour)
	for i := 0; i < contract.ListPending; i++ {
		if _, err := file(ctx, st, contract.SidecarName, fmt.Sprintf("v1:list-%d", i), 0, at); err != nil {
			return nil, err
		}
		at = at.Add(time.Minute)
	}
	for i, to := range []domain.Status{domain.StatusApproved, domain.StatusRejected} {
		rec, err := file(ctx, st, contract.SidecarName, fmt.Sprintf("v1:list-decided-%d", i), 0, at)
		if err != nil {
			return nil, err
		}
		if _, _, err := st.Decide(ctx, rec.ID, to, "", approverName, now); err != nil {
			return nil, err
		}
		at = at.Add(time.Minute)
	}
	return nil, nil
}

// stringParam returns the non-empty string parameter key of a state.
func stringParam(params map[string]any, key string) (string, error) {
	v, ok := params[key].(string)
	if !ok || v == "" {
		return "", fmt.Errorf("provider state: parameter %q (a non-empty string) is missing", key)
	}
	return v, nil
}
