package app_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
)

// lowercaseValues reads a map keyed in lowercase, as gRPC metadata is.
func lowercaseValues(m map[string][]string) app.Values {
	return func(name string) []string { return m[strings.ToLower(name)] }
}

func TestWantsReturnModeHeader(t *testing.T) {
	for _, c := range []struct {
		values []string
		want   bool
	}{
		{[]string{"return"}, true},
		{[]string{" Return "}, true},
		{[]string{"wait", "RETURN"}, true},
		{[]string{"wait"}, false},
		{[]string{"returned"}, false},
		{[]string{"hoop-approval=return"}, false}, // the application-name token is not a header value
		{nil, false},
	} {
		h := http.Header{}
		for _, v := range c.values {
			h.Add("x-hoop-approval", v)
		}
		if got := app.WantsReturnModeHeader(h.Values); got != c.want {
			t.Errorf("http header %q: %v, want %v", c.values, got, c.want)
		}
		md := map[string][]string{}
		if c.values != nil {
			md["x-hoop-approval"] = c.values
		}
		if got := app.WantsReturnModeHeader(lowercaseValues(md)); got != c.want {
			t.Errorf("metadata %q: %v, want %v", c.values, got, c.want)
		}
	}
}

func TestIdentityValues(t *testing.T) {
	h := http.Header{}
	h.Add("Authorization", "Bearer a")
	h.Add("X-Team", "")
	md := map[string][]string{"authorization": {"Bearer a"}, "x-team": {""}}
	want := map[string][]string{"authorization": {"Bearer a"}, "x-team": {""}, "x-tenant": nil}
	keys := []string{"Authorization", "x-team", "X-Tenant"}
	for name, get := range map[string]app.Values{"http": h.Values, "grpc": lowercaseValues(md)} {
		if got := app.IdentityValues(get, keys); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
		if got := app.IdentityValues(get, nil); got != nil {
			t.Errorf("%s without identity keys: %v, want nil", name, got)
		}
	}
}

func TestNeedsPayloadOnlyWhenAnApprovalRuleDecides(t *testing.T) {
	s := &app.ListenerSettings{
		Approvals: []domain.ApprovalRule{{Name: "a", Match: domain.Match{Actions: []string{"DELETE", "PUT"}}}},
		Policies:  []domain.PolicyRule{{Name: "p", Match: domain.Match{Actions: []string{"PUT"}}}},
	}
	for action, want := range map[string]bool{"DELETE": true, "PUT": false, "GET": false} {
		if got := app.NeedsPayload(s, domain.Analysis{Actions: []string{action}}); got != want {
			t.Errorf("%s: %v, want %v", action, got, want)
		}
	}
}
