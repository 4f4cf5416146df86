package metrics

import (
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hoophq/sidecar/ports"
)

// Prometheus is the Sidecar's Prometheus metrics. It implements
// ports.Metrics and is safe for concurrent use.
type Prometheus struct {
	statements *prometheus.CounterVec
	filed      *prometheus.CounterVec
	claims     *prometheus.CounterVec
	cpLatency  *prometheus.HistogramVec
	cpErrors   *prometheus.CounterVec
	auditDrops prometheus.Counter
	masked     *prometheus.CounterVec
	unread     *prometheus.CounterVec
	registry   *prometheus.Registry
	// counted caches statements' counter of each (listener, decision):
	// WithLabelValues hashes, validates and locks on every call, which
	// every statement of every listener paid.
	counted sync.Map // statementKey → prometheus.Counter
}

// statementKey is the labels of one hoop_sidecar_statements_total series.
type statementKey struct{ listener, decision string }

var (
	_ ports.Metrics        = (*Prometheus)(nil)
	_ ports.MaskingMetrics = (*Prometheus)(nil)
)

// New registers the metrics on a new registry, with the Go and process
// collectors.
func New() *Prometheus {
	r := prometheus.NewRegistry()
	m := &Prometheus{
		registry: r,
		statements: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_statements_total",
			Help: "Statements decided, by listener and decision (allow, deny_policy, deny_approval, deny_unavailable, deny_too_large, deny_uncheckable, forward_approved, settle_accepted, settle_refused, client_gone, wait_canceled, deny_shutdown)."},
			[]string{"listener", "decision"}),
		filed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_approvals_filed_total",
			Help: "New approval requests filed (reused ones are not counted), by listener."}, []string{"listener"}),
		claims: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_approval_claims_total",
			Help: "Claims of APPROVED approvals, by listener and result (won, lost)."}, []string{"listener", "result"}),
		cpLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hoop_sidecar_control_plane_request_seconds",
			Help: "Control Plane call latency in seconds, by call.", Buckets: prometheus.DefBuckets}, []string{"call"}),
		cpErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_control_plane_errors_total",
			Help: "Control Plane call errors, by call and kind (unavailable, not_found, older, unauthorized, conflict, other)."},
			[]string{"call", "kind"}),
		auditDrops: prometheus.NewCounter(prometheus.CounterOpts{Name: "hoop_sidecar_audit_dropped_total",
			Help: "Allow lines of the audit trail dropped because its writer could not keep up (denials and approvals are never dropped)."}),
		masked: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_masked_values_total",
			Help: "Values masked in results before the agent read them, by listener and masking rule."}, []string{"listener", "rule"}),
		unread: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hoop_sidecar_masking_uninspected_total",
			Help: "Values a best_effort masking rule could not read and sent as they were, by listener."}, []string{"listener"}),
	}
	r.MustRegister(m.statements, m.filed, m.claims, m.cpLatency, m.cpErrors, m.auditDrops, m.masked, m.unread,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// Statement counts hoop_sidecar_statements_total{listener, decision}.
func (m *Prometheus) Statement(listener, decision string) {
	k := statementKey{listener, decision}
	c, ok := m.counted.Load(k)
	if !ok {
		c, _ = m.counted.LoadOrStore(k, m.statements.WithLabelValues(listener, decision))
	}
	c.(prometheus.Counter).Inc()
}

// Masked counts hoop_sidecar_masked_values_total{listener, rule}.
func (m *Prometheus) Masked(listener, rule string, values int) {
	m.masked.WithLabelValues(listener, rule).Add(float64(values))
}

// Uninspected counts hoop_sidecar_masking_uninspected_total{listener}.
func (m *Prometheus) Uninspected(listener string, values int) {
	m.unread.WithLabelValues(listener).Add(float64(values))
}

// ApprovalFiled counts hoop_sidecar_approvals_filed_total{listener}.
func (m *Prometheus) ApprovalFiled(listener string) { m.filed.WithLabelValues(listener).Inc() }

// Claim counts hoop_sidecar_approval_claims_total{listener, result="won"|"lost"}.
func (m *Prometheus) Claim(listener string, won bool) {
	result := "lost"
	if won {
		result = "won"
	}
	m.claims.WithLabelValues(listener, result).Inc()
}

// ObserveControlPlane records one Control Plane call (the client's
// Options.Observe): its latency in seconds in
// hoop_sidecar_control_plane_request_seconds{call} and, when kind is not
// empty, an error in hoop_sidecar_control_plane_errors_total{call, kind}.
func (m *Prometheus) ObserveControlPlane(call string, seconds float64, kind string) {
	m.cpLatency.WithLabelValues(call).Observe(seconds)
	if kind != "" {
		m.cpErrors.WithLabelValues(call, kind).Inc()
	}
}

// AuditDropped counts hoop_sidecar_audit_dropped_total: one allow line the
// audit writer dropped (audit.Options.OnDrop).
func (m *Prometheus) AuditDropped() { m.auditDrops.Inc() }

// Handler serves the metrics in the Prometheus text format (GET /metrics).
func (m *Prometheus) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
