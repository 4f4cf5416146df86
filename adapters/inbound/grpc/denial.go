package grpclistener

import (
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/domain"
)

// denialTrailer returns the trailing metadata of a denial: the spec's keys in
// lowercase (spec, "Find the approval in the denial").
//
//	x-hoop-denied           review for an approval denial; policy for any other
//	x-hoop-approval-id      the approval id (approval denials only)
//	x-hoop-approval-status  its status; absent when the Sidecar could not read it
//	x-hoop-review-id        the same id under the earlier name
//	x-hoop-review-status    the same status under the earlier name
//	retry-after             "5", in return mode while the request is PENDING only
func denialTrailer(d *domain.Denial) metadata.MD {
	md := metadata.MD{}
	set := func(key, v string) { md.Set(strings.ToLower(key), v) }
	set(domain.Names.HeaderDenied, d.DeniedValue())
	if !d.NamesApproval() {
		return md
	}
	set(domain.Names.HeaderApprovalID, d.ApprovalID)
	set(domain.Names.HeaderReviewID, d.ApprovalID)
	if d.Status != "" {
		set(domain.Names.HeaderApprovalStatus, string(d.Status))
		set(domain.Names.HeaderReviewStatus, string(d.Status))
	}
	if d.RetryAfter {
		set(domain.Names.HeaderRetryAfter, strconv.Itoa(domain.RetryAfterSeconds))
	}
	return md
}

// denialStatus is the status a denied call ends with: PERMISSION_DENIED and
// the denial's text, for every kind of denial. A statement that needs
// approval while the Control Plane is unreachable is denied the same way
// (x-hoop-denied: policy), not with UNAVAILABLE: clients and service configs
// retry UNAVAILABLE on their own, and the http listener answers it with the
// same 403 (docs/grpc-listener.md).
//
// The one exception is a wait-mode call still waiting for a person when the
// Sidecar shuts down (domain.DeniedShutdown): UNAVAILABLE, which is what it
// is, and a retry (to a Sidecar that is up) finds the same approval.
func denialStatus(d *domain.Denial) *status.Status {
	if d.Kind == domain.DeniedShutdown {
		return status.New(codes.Unavailable, d.Message)
	}
	return status.New(codes.PermissionDenied, d.Message)
}
