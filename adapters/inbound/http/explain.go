package httplistener

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// Explain returns the analysis this listener's rules match for a request
// written `METHOD /path[?query]` (`sidecar explain`): the same reading as a
// request head with that method and target, no headers, no body. It is an
// error when statement is not of that form.
func Explain(statement string) (domain.Analysis, error) {
	method, target, ok := strings.Cut(strings.TrimSpace(statement), " ")
	target = strings.TrimSpace(target)
	if !ok || method == "" || !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \t") {
		return domain.Analysis{}, fmt.Errorf("an http statement is METHOD /path, e.g. DELETE /v1/items/1, not %q", statement)
	}
	r, err := http.NewRequest(method, "http://upstream"+target, nil)
	if err != nil {
		return domain.Analysis{}, fmt.Errorf("%q is not a request line: %w", statement, err)
	}
	r.RequestURI = target
	return analyze(r), nil
}
