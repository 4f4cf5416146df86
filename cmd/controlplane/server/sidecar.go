package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hoophq/sidecar/cmd/controlplane/store"
	"github.com/hoophq/sidecar/domain"
)

// maxTimeLimit bounds time_limit_seconds (ten years).
const maxTimeLimit = 10 * 365 * 24 * 3600

// healthz answers 200 {"status":"ok"} when the store answers, else 503.
func (s *srv) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := s.st.Ping(ctx); err != nil {
		s.log.Error("healthz: store does not answer", "err", err)
		writeError(w, http.StatusServiceUnavailable, "internal", "the store does not answer")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// info: GET /api/sidecars/info.
func (s *srv) info(w http.ResponseWriter, _ *http.Request, sidecar string) {
	writeJSON(w, http.StatusOK, map[string]any{"api_version": s.apiVer, "version": s.version, "sidecar": sidecar,
		"claim_keys": true})
}

type fileBody struct {
	Fingerprint      string `json:"fingerprint"`
	ListenerName     string `json:"listener_name"`
	ApprovalRule     string `json:"approval_rule"`
	Statement        string `json:"statement"`
	Protocol         string `json:"protocol"`
	ClientIdentity   string `json:"client_identity"`
	TimeLimitSeconds int64  `json:"time_limit_seconds"`
}

// file: POST /api/sidecars/reviews — 201 new, 200 reused.
func (s *srv) file(w http.ResponseWriter, r *http.Request, sidecar string) {
	var b fileBody
	if err := s.decode(w, r, &b, false); err != nil {
		badBody(w, err)
		return
	}
	switch {
	case b.Fingerprint == "":
		writeError(w, http.StatusBadRequest, "invalid", "fingerprint must not be empty")
		return
	case b.ListenerName == "":
		writeError(w, http.StatusBadRequest, "invalid", "listener_name must not be empty")
		return
	case b.ApprovalRule == "":
		writeError(w, http.StatusBadRequest, "invalid", "approval_rule must not be empty")
		return
	case b.TimeLimitSeconds < 0 || b.TimeLimitSeconds > maxTimeLimit:
		writeError(w, http.StatusBadRequest, "invalid", "time_limit_seconds must be from 0 (no limit) to 315360000")
		return
	}
	rec, reused, err := s.st.File(r.Context(), sidecar, store.FileInput{
		Fingerprint: b.Fingerprint, ListenerName: b.ListenerName, ApprovalRule: b.ApprovalRule,
		Statement: b.Statement, Protocol: b.Protocol, ClientIdentity: b.ClientIdentity,
		TimeLimit: time.Duration(b.TimeLimitSeconds) * time.Second,
	}, s.now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	code := http.StatusCreated
	if reused {
		code = http.StatusOK
	} else if s.requested != nil {
		s.requested(rec)
	}
	writeJSON(w, code, struct {
		Approval
		Reused bool `json:"reused"`
	}{approvalOf(rec), reused})
}

// read: GET /api/sidecars/reviews/{id} (counted in sidecar_reads).
func (s *srv) read(w http.ResponseWriter, r *http.Request, sidecar string) {
	rec, err := s.st.Read(r.Context(), sidecar, r.PathValue("id"), s.now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, approvalOf(rec))
}

// list: GET /api/sidecars/reviews?status=&limit=.
func (s *srv) list(w http.ResponseWriter, r *http.Request, sidecar string) {
	st, limit, err := listParams(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	recs, err := s.st.List(r.Context(), store.Filter{Sidecar: sidecar, Status: st, Limit: limit}, s.now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]Approval, len(recs))
	for i, rec := range recs {
		out[i] = approvalOf(rec)
	}
	writeJSON(w, http.StatusOK, map[string]any{"reviews": out})
}

// claim: POST /api/sidecars/reviews/{id}/claim.
func (s *srv) claim(w http.ResponseWriter, r *http.Request, sidecar string) {
	var b struct {
		Fingerprint     string `json:"fingerprint"`
		SpendApprovalOn string `json:"spend_approval_on"`
		ClaimKey        string `json:"claim_key"`
	}
	if err := s.decode(w, r, &b, false); err != nil {
		badBody(w, err)
		return
	}
	to := domain.StatusExecuted
	switch b.SpendApprovalOn {
	case "sent", "":
	case "accepted":
		to = domain.StatusProcessing
	default:
		writeError(w, http.StatusBadRequest, "invalid", `spend_approval_on must be "sent" or "accepted"`)
		return
	}
	if b.Fingerprint == "" {
		writeError(w, http.StatusBadRequest, "invalid", "fingerprint must not be empty")
		return
	}
	if !validClaimKey(w, b.ClaimKey) {
		return
	}
	rec, won, err := s.st.Claim(r.Context(), sidecar, r.PathValue("id"), b.Fingerprint, b.ClaimKey, to, s.now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !won {
		msg := "approval " + rec.ID + " is " + string(rec.Status) + ", not APPROVED"
		if rec.Status == domain.StatusApproved {
			msg = "approval " + rec.ID + " was given for another statement (fingerprint differs)"
		}
		writeJSON(w, http.StatusConflict, struct {
			Error
			Claimed bool     `json:"claimed"`
			Review  Approval `json:"review"`
		}{Error{"claim_lost", msg}, false, approvalOf(rec)})
		return
	}
	// claim_key echoes the winning key: it tells the Sidecar that this
	// Control Plane keeps keys, so a give-back may be repeated.
	writeJSON(w, http.StatusOK, struct {
		Approval
		Claimed  bool   `json:"claimed"`
		ClaimKey string `json:"claim_key,omitempty"`
		Lease
	}{approvalOf(rec), true, rec.ClaimKey, leaseOf(rec, s.st.Lease())})
}

// settle: POST /api/sidecars/reviews/{id}/settle.
func (s *srv) settle(w http.ResponseWriter, r *http.Request, sidecar string) {
	var b struct {
		Outcome  string `json:"outcome"`
		ClaimKey string `json:"claim_key"`
	}
	if err := s.decode(w, r, &b, false); err != nil {
		badBody(w, err)
		return
	}
	if b.Outcome != "accepted" && b.Outcome != "refused" {
		writeError(w, http.StatusBadRequest, "invalid", `outcome must be "accepted" or "refused"`)
		return
	}
	if !validClaimKey(w, b.ClaimKey) {
		return
	}
	rec, err := s.st.Settle(r.Context(), sidecar, r.PathValue("id"), b.ClaimKey, b.Outcome == "accepted", s.now())
	if s.notProcessing(w, r, err, "") {
		writeJSON(w, http.StatusOK, approvalOf(rec))
	}
}

// notProcessing answers a settle's or renew's error and returns false, or
// returns true when err is nil: a *store.ConflictError is 409
// not_processing with the current state in "review" ("approval … is
// <status>, not PROCESSING" and why), anything else s.fail.
func (s *srv) notProcessing(w http.ResponseWriter, r *http.Request, err error, why string) bool {
	var ce *store.ConflictError
	switch {
	case err == nil:
		return true
	case errors.As(err, &ce):
		writeJSON(w, http.StatusConflict, struct {
			Error
			Review Approval `json:"review"`
		}{Error{"not_processing", "approval " + ce.Current.ID + " is " + string(ce.Current.Status) + ", not PROCESSING" + why},
			approvalOf(ce.Current)})
	default:
		s.fail(w, r, err)
	}
	return false
}

// renew: POST /api/sidecars/reviews/{id}/renew.
func (s *srv) renew(w http.ResponseWriter, r *http.Request, sidecar string) {
	var b struct {
		ClaimKey string `json:"claim_key"`
	}
	if err := s.decode(w, r, &b, false); err != nil {
		badBody(w, err)
		return
	}
	if b.ClaimKey == "" {
		writeError(w, http.StatusBadRequest, "invalid", "claim_key must not be empty: a lease is renewed by the claim that holds it")
		return
	}
	if !validClaimKey(w, b.ClaimKey) {
		return
	}
	rec, err := s.st.Renew(r.Context(), sidecar, r.PathValue("id"), b.ClaimKey, s.now())
	if s.notProcessing(w, r, err, " under this claim with its lease held") {
		writeJSON(w, http.StatusOK, struct {
			Approval
			Lease
		}{approvalOf(rec), leaseOf(rec, s.st.Lease())})
	}
}

// Lease is what a claim to PROCESSING and a renew answer say of the
// request's lease (docs/control-plane-api.md, "Renew"): when it lapses, and
// its length in seconds, which the Sidecar renews at a third of. Both are
// left out when the request has no lease.
type Lease struct {
	LeaseExpiresAt *time.Time `json:"lease_expires_at,omitempty"`
	LeaseSeconds   int64      `json:"lease_seconds,omitempty"`
}

func leaseOf(rec store.Record, lease time.Duration) Lease {
	if rec.LeaseUntil == nil || rec.Status != domain.StatusProcessing {
		return Lease{}
	}
	return Lease{LeaseExpiresAt: second(rec.LeaseUntil), LeaseSeconds: int64(lease / time.Second)}
}

// MaxClaimKey is the longest claim_key a claim or settle takes, in bytes.
const MaxClaimKey = 128

// validClaimKey answers 400 invalid and returns false unless key is empty or
// 1..MaxClaimKey printable ASCII bytes (docs/control-plane-api.md, "Claim").
func validClaimKey(w http.ResponseWriter, key string) bool {
	ok := len(key) <= MaxClaimKey
	for i := 0; ok && i < len(key); i++ {
		ok = key[i] > ' ' && key[i] < 0x7f
	}
	if !ok {
		writeError(w, http.StatusBadRequest, "invalid", fmt.Sprintf("claim_key must be at most %d printable ASCII characters", MaxClaimKey))
	}
	return ok
}
