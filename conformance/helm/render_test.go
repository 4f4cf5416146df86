// Package helmconf tests the Helm chart charts/hoopsidecar offline, with Helm's own Go packages
// (helm.sh/helm/v3 v3.22.0: chart loader, template engine, linter): it renders the chart for
// several release names and values sets, decodes every rendered manifest strictly into the
// k8s.io/api types, checks the names, ports, probes, securityContext and NetworkPolicy against
// the spec's "On Kubernetes" section, and runs the real `sidecar validate` on the rendered
// config.
package helmconf

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"

	"github.com/hoophq/sidecar/conformance/harness"
)

// chartDir is charts/hoopsidecar in this checkout.
func chartDir(t testing.TB) string {
	return filepath.Join(harness.RepoRoot(t), "charts", "hoopsidecar")
}

func loadChart(t testing.TB) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir(t))
	if err != nil {
		t.Fatalf("load chart: %v", err)
	}
	return ch
}

// strict decodes YAML into the registered k8s.io/api types, refusing unknown and duplicate
// fields, and kinds the chart is not expected to render.
var strict = func() runtime.Decoder {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme,
		policyv1.AddToScheme, networkingv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{Yaml: true, Strict: true})
}()

// rendered is one `helm template`: every object, decoded strictly.
type rendered struct {
	ConfigMaps      []*corev1.ConfigMap
	Deployments     []*appsv1.Deployment
	Services        []*corev1.Service
	PDBs            []*policyv1.PodDisruptionBudget
	NetworkPolicies []*networkingv1.NetworkPolicy
	Notes           string
}

// values reads a values file of the chart (e.g. "ci/values-test.yaml") and merges over into
// it, the way --set and -f do.
func values(t testing.TB, file string, over ...string) map[string]any {
	t.Helper()
	v := map[string]any{}
	if file != "" {
		b, err := os.ReadFile(filepath.Join(chartDir(t), file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range over {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(o), &m); err != nil {
			t.Fatalf("values %q: %v", o, err)
		}
		v = chartutil.MergeTables(m, v)
	}
	return v
}

// renderErr renders the chart as `helm template <release> -n <namespace>` with vals (over the
// chart's values.yaml and its schema) and returns the error Helm would print.
func renderErr(t testing.TB, release, namespace string, vals map[string]any) (map[string]string, error) {
	t.Helper()
	ch := loadChart(t)
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: release, Namespace: namespace,
		Revision: 1, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, rv)
}

// render is renderErr that fails the test on an error, then decodes every manifest strictly.
func render(t testing.TB, release, namespace string, vals map[string]any) *rendered {
	t.Helper()
	files, err := renderErr(t, release, namespace, vals)
	if err != nil {
		t.Fatalf("helm template %s: %v", release, err)
	}
	r := &rendered{}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.HasSuffix(name, "NOTES.txt") {
			r.Notes = files[name]
			continue
		}
		for _, doc := range releaseutil.SplitManifests(files[name]) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			obj, gvk, err := strict.Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Fatalf("%s does not decode strictly into k8s.io/api: %v\n%s", name, err, doc)
			}
			switch o := obj.(type) {
			case *corev1.ConfigMap:
				r.ConfigMaps = append(r.ConfigMaps, o)
			case *appsv1.Deployment:
				r.Deployments = append(r.Deployments, o)
			case *corev1.Service:
				r.Services = append(r.Services, o)
			case *policyv1.PodDisruptionBudget:
				r.PDBs = append(r.PDBs, o)
			case *networkingv1.NetworkPolicy:
				r.NetworkPolicies = append(r.NetworkPolicies, o)
			default:
				t.Fatalf("%s renders a %s the test does not expect", name, gvk)
			}
		}
	}
	return r
}

func (r *rendered) deployment(t testing.TB) *appsv1.Deployment {
	t.Helper()
	if len(r.Deployments) != 1 {
		t.Fatalf("%d Deployments rendered, want 1", len(r.Deployments))
	}
	return r.Deployments[0]
}

func (r *rendered) service(t testing.TB, name string) *corev1.Service {
	t.Helper()
	var have []string
	for _, s := range r.Services {
		if s.Name == name {
			return s
		}
		have = append(have, s.Name)
	}
	t.Fatalf("no Service %s; rendered %v", name, have)
	return nil
}

func (r *rendered) configYAML(t testing.TB) string {
	t.Helper()
	if len(r.ConfigMaps) != 1 {
		t.Fatalf("%d ConfigMaps rendered, want 1", len(r.ConfigMaps))
	}
	c, ok := r.ConfigMaps[0].Data["config.yaml"]
	if !ok {
		t.Fatalf("ConfigMap %s has no config.yaml", r.ConfigMaps[0].Name)
	}
	return c
}
