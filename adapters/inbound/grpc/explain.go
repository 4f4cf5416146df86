package grpclistener

import (
	"fmt"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// Explain returns the analysis this listener's rules match for a call of
// method `/package.Service/Method` (`sidecar explain`), without its
// messages. It is an error for a method name the listener refuses.
func Explain(statement string) (domain.Analysis, error) {
	method := strings.TrimSpace(statement)
	if !wellFormed(method) {
		return domain.Analysis{}, fmt.Errorf("a grpc statement is /package.Service/Method, not %q", statement)
	}
	return analysis(method), nil
}
