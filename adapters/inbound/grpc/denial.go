package grpclistener

import (
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/domain"
)

// denialTrailer returns the trailing metadata of a denial: its fields
// (domain.Denial.Fields: the spec's "Find the approval in the denial") with
// the names in lowercase, e.g. x-hoop-denied, x-hoop-approval-id.
func denialTrailer(d *domain.Denial) metadata.MD {
	md := metadata.MD{}
	for _, f := range d.Fields() {
		md.Set(strings.ToLower(f.Name), f.Value)
	}
	return md
}

// denialFields returns denialTrailer(d) as header fields, in a fixed order.
func denialFields(d *domain.Denial) fields {
	var out fields
	for _, f := range d.Fields() {
		out = append(out, field(strings.ToLower(f.Name), f.Value))
	}
	return out
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
