package grpclistener

import (
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// FuzzMethodEffects: any method name gets exactly one word of the
// vocabulary, and a name that does not start with a standard verb (and is
// not of the read-only services) is UNKNOWN.
func FuzzMethodEffects(f *testing.F) {
	for _, s := range []string{"/a.B/GetBook", "/a.B/BatchDeleteBooks", "/a.B/GetOrCreateBook", "/a.B/Getaway",
		"/grpc.health.v1.Health/Check", "/a.B/GetHTTPRoute", "/a.B/Delete_x", "/a.B/É", "no-slash"} {
		f.Add(s)
	}
	verbs := []string{"Get", "List", "Search", "Create", "Update", "Delete", "BatchGet", "BatchCreate",
		"BatchUpdate", "BatchDelete"}
	f.Fuzz(func(t *testing.T, full string) {
		got := methodEffects(full)
		if len(got) != 1 || !domain.IsEffect(got[0]) {
			t.Fatalf("%q: effects %v", full, got)
		}
		service, method, _ := strings.Cut(strings.TrimPrefix(full, "/"), "/")
		if got[0] == domain.EffectUnknown || readOnlyServices[service] {
			return
		}
		for _, v := range verbs {
			if strings.HasPrefix(method, v) {
				return
			}
		}
		t.Fatalf("%q: %v without a standard verb", full, got)
	})
}
