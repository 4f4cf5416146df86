package app

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Sidecar's Prometheus metrics. A nil *Metrics records nothing.
type Metrics struct {
	Statements *prometheus.CounterVec
	Filed      *prometheus.CounterVec
	Claims     *prometheus.CounterVec
	CPLatency  *prometheus.HistogramVec
	CPErrors   *prometheus.CounterVec
	Registry   *prometheus.Registry
}

// NewMetrics registers the metrics on a new registry (also holding the Go
// and process collectors).
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		Registry: r,
		Statements: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_statements_total",
			Help: "Statements decided, by listener and decision (allow, deny_policy, deny_approval, deny_unavailable, forward_approved, settle_accepted, settle_refused, client_gone, wait_canceled)."},
			[]string{"listener", "decision"}),
		Filed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_approvals_filed_total",
			Help: "New approval requests filed (reused ones are not counted), by listener."}, []string{"listener"}),
		Claims: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_approval_claims_total",
			Help: "Claims of APPROVED approvals, by listener and result (won, lost)."}, []string{"listener", "result"}),
		CPLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hoop_sidecar_control_plane_request_seconds",
			Help: "Control Plane call latency in seconds, by call.", Buckets: prometheus.DefBuckets}, []string{"call"}),
		CPErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_control_plane_errors_total",
			Help: "Control Plane call errors, by call and kind (unavailable, not_found, older, unauthorized, conflict, other)."},
			[]string{"call", "kind"}),
	}
	r.MustRegister(m.Statements, m.Filed, m.Claims, m.CPLatency, m.CPErrors,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

func (m *Metrics) statement(listener, decision string) {
	if m != nil {
		m.Statements.WithLabelValues(listener, decision).Inc()
	}
}

func (m *Metrics) approvalFiled(listener string) {
	if m != nil {
		m.Filed.WithLabelValues(listener).Inc()
	}
}

func (m *Metrics) claim(listener string, won bool) {
	if m != nil {
		m.Claims.WithLabelValues(listener, map[bool]string{true: "won", false: "lost"}[won]).Inc()
	}
}
