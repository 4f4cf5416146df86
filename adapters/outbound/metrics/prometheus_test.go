package metrics_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/adapters/outbound/metrics"
)

// /metrics shows each count under the names and labels dashboards use.
func TestHandlerShowsEveryMetric(t *testing.T) {
	m := metrics.New()
	m.Statement("api", "deny_approval")
	m.Statement("api", "allow")
	m.Statement("api", "allow")
	m.ApprovalFiled("api")
	m.Claim("api", true)
	m.Claim("api", false)
	m.ObserveControlPlane("file", 0.02, "")
	m.ObserveControlPlane("get", 0.5, "unavailable")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`hoop_sidecar_statements_total{decision="deny_approval",listener="api"} 1`,
		`hoop_sidecar_statements_total{decision="allow",listener="api"} 2`,
		`hoop_sidecar_approvals_filed_total{listener="api"} 1`,
		`hoop_sidecar_approval_claims_total{listener="api",result="won"} 1`,
		`hoop_sidecar_approval_claims_total{listener="api",result="lost"} 1`,
		`hoop_sidecar_control_plane_request_seconds_count{call="file"} 1`,
		`hoop_sidecar_control_plane_request_seconds_count{call="get"} 1`,
		`hoop_sidecar_control_plane_errors_total{call="get",kind="unavailable"} 1`,
		`go_goroutines `,
		`process_start_time_seconds `,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(string(body), `kind=""`) {
		t.Error("a call without error counted an error")
	}
}
