package helmconf

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/hoophq/sidecar/conformance/harness"
)

// docBlock returns the fenced yaml block of docs/kubernetes.md whose first line is first.
func docBlock(t *testing.T, first string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(harness.RepoRoot(t), "docs", "kubernetes.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)( *)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		indent, body := m[1], m[2]
		body = regexp.MustCompile("(?m)^"+indent).ReplaceAllString(body, "")
		if strings.HasPrefix(body, first+"\n") {
			return body
		}
	}
	t.Fatalf("docs/kubernetes.md has no yaml block starting with %q", first)
	return ""
}

// Both shapes of docs/kubernetes.md work as written: the Deployment's values render the Services
// the page names, and the agent's pod decodes strictly and mounts the ConfigMap the chart renders
// for it, with the chart's image, probes and securityContext.
func TestDocsShapes(t *testing.T) {
	vals := func(block string) map[string]any {
		t.Helper()
		path := filepath.Join(t.TempDir(), "values.yaml")
		if err := os.WriteFile(path, []byte(block), 0o600); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(chartDir(t), path)
		return values(t, rel)
	}

	r := render(t, "payments", "agents", vals(docBlock(t, "# values-payments.yaml")))
	r.service(t, "payments-hoopsidecar-mcp")
	r.service(t, "payments-hoopsidecar-payments")
	if len(r.NetworkPolicies) != 1 {
		t.Error("the page's values enable a NetworkPolicy; none rendered")
	}
	chartPod := r.deployment(t).Spec.Template.Spec

	inPod := render(t, "my-agent-sidecar", "agents", vals(docBlock(t, "# values-in-pod.yaml")))
	if len(inPod.Deployments)+len(inPod.Services)+len(inPod.PDBs)+len(inPod.NetworkPolicies) != 0 || len(inPod.ConfigMaps) != 1 {
		t.Fatalf("values-in-pod.yaml renders more than the ConfigMap: %+v", inPod)
	}
	validateConfig(t, inPod.configYAML(t))

	obj, _, err := strict.Decode([]byte(docBlock(t, "# the agent's Deployment, with the Sidecar added")), nil, nil)
	if err != nil {
		t.Fatalf("the agent's Deployment does not decode strictly: %v", err)
	}
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		t.Fatalf("the agent's manifest is a %T", obj)
	}
	pod := d.Spec.Template.Spec
	var found bool
	for _, c := range pod.Containers {
		if c.Name != "hoop-sidecar" {
			continue
		}
		found = true
		want := chartPod.Containers[0]
		if c.Image != want.Image || !reflect.DeepEqual(c.Args, want.Args) {
			t.Errorf("image %s args %v; the chart runs %s %v", c.Image, c.Args, want.Image, want.Args)
		}
		if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
			t.Errorf("probes %s %s", c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path)
		}
		got, ref := c.SecurityContext, want.SecurityContext
		if !reflect.DeepEqual(got.Capabilities, ref.Capabilities) || !reflect.DeepEqual(got.ReadOnlyRootFilesystem, ref.ReadOnlyRootFilesystem) ||
			!reflect.DeepEqual(got.AllowPrivilegeEscalation, ref.AllowPrivilegeEscalation) || !reflect.DeepEqual(got.RunAsNonRoot, ref.RunAsNonRoot) ||
			!reflect.DeepEqual(got.SeccompProfile, ref.SeccompProfile) {
			t.Errorf("securityContext %+v differs from the chart's %+v", got, ref)
		}
	}
	if !found {
		t.Fatal("the agent's Deployment has no hoop-sidecar container")
	}
	var mounted string
	for _, v := range pod.Volumes {
		if v.ConfigMap != nil {
			mounted = v.ConfigMap.Name
		}
	}
	if mounted != inPod.ConfigMaps[0].Name {
		t.Errorf("the agent's pod mounts ConfigMap %q; the chart renders %q", mounted, inPod.ConfigMaps[0].Name)
	}
}
