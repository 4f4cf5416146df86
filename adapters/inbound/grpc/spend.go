package grpclistener

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hoophq/sidecar/domain"
)

// refused are the status codes with which a gRPC server refuses a call
// before it acts on it (grpc/doc/statuscodes.md: the request is invalid,
// names what is not there or already is, is not allowed, or the system is
// not in the state the operation requires; the method does not exist).
// UNAVAILABLE, INTERNAL, UNKNOWN, ABORTED, DEADLINE_EXCEEDED, CANCELLED and
// every other code is no proof: the call may have run in part.
var refused = map[codes.Code]bool{
	codes.InvalidArgument:    true,
	codes.NotFound:           true,
	codes.AlreadyExists:      true,
	codes.PermissionDenied:   true,
	codes.Unauthenticated:    true,
	codes.FailedPrecondition: true,
	codes.Unimplemented:      true,
}

// proof returns the proof that nothing of a relayed call ran
// (domain.NothingRan; spend_approval_on: accepted) from err, the status the
// upstream ended the call with before any response message, or the zero
// value, which spends the approval. docs/grpc-listener.md.
func proof(err error) domain.NothingRan {
	st, ok := status.FromError(err)
	if err == nil || !ok || !refused[st.Code()] {
		return domain.NothingRan{}
	}
	return domain.RefusedBeforeRun("gRPC status " + st.Code().String())
}
