package helmconf

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
)

// `helm lint --strict` (Helm's own linter: Chart.yaml, values against values.schema.json, every
// template rendered and parsed) passes with the chart's defaults and with the CI values, in two
// namespaces, and fails on a misspelt value. (In lint mode Helm skips the templates' `fail`
// calls, so the refusals are checked by TestChartRefusesValuesThatCannotWork.)
func TestHelmLint(t *testing.T) {
	for _, file := range []string{"", "ci/values-test.yaml"} {
		for _, ns := range []string{"agents", "default"} {
			l := lint.AllWithKubeVersionAndSchemaValidation(chartDir(t), values(t, file), ns, nil, false)
			if l.HighestSeverity >= support.WarningSev {
				t.Errorf("helm lint --strict -n %s -f %q: %s", ns, file, messages(l))
			}
			t.Logf("helm lint --strict -n %s -f %q: %s", ns, file, messages(l))
		}
	}
	l := lint.AllWithKubeVersionAndSchemaValidation(chartDir(t), values(t, "", `networkPolcy: {enabled: true}`), "agents", nil, false)
	if l.HighestSeverity != support.ErrorSev || !strings.Contains(messages(l), "networkPolcy") {
		t.Errorf("helm lint with a misspelt value: %s; want an error naming it", messages(l))
	}
}

// The values schema refuses a misspelt value and a lane port without a number.
func TestValuesSchemaRefusesTypos(t *testing.T) {
	for want, over := range map[string]string{
		"laneService":  `laneService: {mcp: {enabled: true}}`,
		"port":         `laneServices: {mcp: {ports: [{name: mcp}]}}`,
		"existingScrt": `token: {existingScrt: x}`,
	} {
		_, err := renderErr(t, "payments", "agents", values(t, "", withToken, over))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a schema error naming %s", over, err, want)
		}
	}
}

func messages(l support.Linter) string {
	var b strings.Builder
	for _, m := range l.Messages {
		b.WriteString(m.Error() + "; ")
	}
	return b.String()
}

// `helm template` without --kube-version renders for Helm's default Kubernetes version: a
// kubeVersion constraint in Chart.yaml must admit it, or the documented commands fail.
func TestHelmTemplateDefaultKubeVersion(t *testing.T) {
	ch := loadChart(t)
	kv := chartutil.DefaultCapabilities.KubeVersion.String()
	if c := ch.Metadata.KubeVersion; c != "" && !chartutil.IsCompatibleRange(c, kv) {
		t.Errorf("Chart.yaml kubeVersion %s refuses Helm's default %s: `helm template` fails without --kube-version", c, kv)
	}
}
