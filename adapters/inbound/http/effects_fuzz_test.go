package httplistener

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// FuzzEffects: for any method and request target the effects are words of
// the vocabulary, never empty, and hold the method's own effects: a
// Kubernetes reading of the path only adds (a DELETE stays DELETE).
func FuzzEffects(f *testing.F) {
	for _, s := range [][2]string{
		{"DELETE", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb"},
		{"DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x"},
		{"POST", "/api/v1/namespaces/default/pods/web-1/exec?command=sh"},
		{"GET", "/api/v1/watch/namespaces/x/pods"},
		{"PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader"},
		{"delete", "/API//v1/namespaces/x/../pods/"},
		{"MOVE", "/dav/%2e%2e/a"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, method, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil || method == "" || strings.ContainsAny(method, " \r\n") {
			return
		}
		got := analyze(&http.Request{Method: method, URL: u, Header: http.Header{}}).Effects
		if len(got) == 0 {
			t.Fatalf("%s %s: no effect", method, target)
		}
		for _, e := range got {
			if !domain.IsEffect(e) {
				t.Fatalf("%s %s: %q is not an effect", method, target, e)
			}
		}
		for _, e := range methodEffects[strings.ToUpper(method)] {
			if !slices.Contains(got, e) {
				t.Fatalf("%s %s: effects %v lack the method's %s", method, target, got, e)
			}
		}
	})
}
