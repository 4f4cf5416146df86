package helmconf

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/internal/version"
)

// withToken is the least a Deployment needs: the Secret holding the Sidecar token.
const withToken = `token: {existingSecret: hoop-sidecar-token}`

// valuesSets are the values files and overrides every manifest is checked under.
var valuesSets = map[string]struct {
	file string
	over []string
}{
	"defaults with a token":                        {"", []string{withToken}},
	"ci/values-test.yaml":                          {"ci/values-test.yaml", nil},
	"in the agent's pod":                           {"", []string{`deployment: {enabled: false}`, `laneServices: {mcp: {enabled: false}}`, `config: {mcp: {listen: 127.0.0.1:8765}}`}},
	"token file, minAvailable":                     {"", []string{withToken, `config: {control_plane: {token_env: null, token_file: /var/run/hoop/token}}`, `podDisruptionBudget: {minAvailable: 1}`}},
	"agents in another namespace, metrics scraped": {"ci/values-test.yaml", []string{`networkPolicy: {agentNamespaceSelector: {kubernetes.io/metadata.name: agents}, metricsFrom: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}]}`}},
	"no pdb, extra env and volume":                 {"", []string{withToken, `podDisruptionBudget: {enabled: false}`, `extraEnv: [{name: TZ, value: UTC}]`, `extraVolumes: [{name: audit, emptyDir: {}}]`, `extraVolumeMounts: [{name: audit, mountPath: /var/log/hoop}]`, `config: {audit: {file: /var/log/hoop/audit.jsonl}}`}},
}

// Every manifest of every values set decodes strictly into k8s.io/api, and every name the API
// server checks is valid.
func TestEveryManifestDecodesStrictly(t *testing.T) {
	for name, vs := range valuesSets {
		t.Run(name, func(t *testing.T) {
			r := render(t, "payments", "agents", values(t, vs.file, vs.over...))
			for _, s := range r.Services {
				if errs := validation.IsDNS1035Label(s.Name); len(errs) > 0 {
					t.Errorf("Service name %s: %v", s.Name, errs)
				}
			}
			for _, d := range r.Deployments {
				for _, c := range d.Spec.Template.Spec.Containers {
					for _, p := range c.Ports {
						if errs := validation.IsValidPortName(p.Name); len(errs) > 0 {
							t.Errorf("container port name %s: %v", p.Name, errs)
						}
					}
				}
			}
			if len(r.ConfigMaps) != 1 {
				t.Errorf("%d ConfigMaps, want 1", len(r.ConfigMaps))
			}
		})
	}
}

// specValues is the spec's own values.yaml ("On Kubernetes"), as written there.
const specValues = `
laneServices:
  mcp:
    enabled: true           # ClusterIP by default; keep it
    ports:
      - {name: mcp, port: 8765}
`

// The spec's names: Service <fullname>-mcp, where <fullname> is <release>-hoopsidecar, or the
// release name alone when it already contains hoopsidecar; the agent's URL in the notes.
func TestServiceNamesFollowTheSpec(t *testing.T) {
	for _, c := range []struct {
		release, over, fullname string
	}{
		{"payments", "", "payments-hoopsidecar"},
		{"my-hoopsidecar", "", "my-hoopsidecar"},
		{"hoopsidecar", "", "hoopsidecar"},
		{"hoopsidecar-ledger", "", "hoopsidecar-ledger"},
		{"payments", `fullnameOverride: edge`, "edge"},
	} {
		t.Run(c.release+" "+c.over, func(t *testing.T) {
			r := render(t, c.release, "agents", values(t, "", withToken, c.over, specValues))
			svc := r.service(t, c.fullname+"-mcp")
			if len(r.Services) != 1 {
				t.Errorf("%d Services with the default values, want only %s-mcp", len(r.Services), c.fullname)
			}
			if svc.Spec.Type != corev1.ServiceTypeClusterIP {
				t.Errorf("%s is %s, want ClusterIP (spec: ClusterIP by default; keep it)", svc.Name, svc.Spec.Type)
			}
			if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "mcp" || svc.Spec.Ports[0].Port != 8765 ||
				svc.Spec.Ports[0].TargetPort.IntValue() != 8765 {
				t.Errorf("%s ports %+v, want mcp 8765 → 8765", svc.Name, svc.Spec.Ports)
			}
			d := r.deployment(t)
			if d.Name != c.fullname {
				t.Errorf("Deployment %s, want %s", d.Name, c.fullname)
			}
			if !reflect.DeepEqual(svc.Spec.Selector, d.Spec.Selector.MatchLabels) ||
				!subset(svc.Spec.Selector, d.Spec.Template.Labels) {
				t.Errorf("Service selector %v does not select the pods %v", svc.Spec.Selector, d.Spec.Template.Labels)
			}
			if r.ConfigMaps[0].Name != c.fullname+"-config" || d.Spec.Template.Spec.Volumes[0].ConfigMap.Name != r.ConfigMaps[0].Name {
				t.Errorf("ConfigMap %s, mounted %s; want %s-config", r.ConfigMaps[0].Name,
					d.Spec.Template.Spec.Volumes[0].ConfigMap.Name, c.fullname)
			}
			url := "http://" + c.fullname + "-mcp.agents.svc:8765/mcp"
			if !strings.Contains(r.Notes, url) {
				t.Errorf("NOTES.txt does not give the agent's URL %s:\n%s", url, r.Notes)
			}
		})
	}
	// A lane per listener: laneServices.payments → payments-hoopsidecar-payments.
	r := render(t, "payments", "agents", values(t, "ci/values-test.yaml"))
	pg := r.service(t, "payments-hoopsidecar-payments")
	if pg.Spec.Ports[0].Port != 5432 || pg.Spec.Ports[0].TargetPort.IntValue() != 15432 {
		t.Errorf("payments lane ports %+v, want 5432 → 15432", pg.Spec.Ports)
	}
	if ports := containerPorts(r.deployment(t)); !reflect.DeepEqual(ports, map[string]int32{"metrics": 9090, "mcp": 8765, "postgres": 15432}) {
		t.Errorf("container ports %v, want metrics 9090, mcp 8765, postgres 15432", ports)
	}
}

// The pod runs as a non-root user with a read-only root filesystem, no privilege escalation,
// every capability dropped and the runtime's seccomp profile; it has resource requests and a
// memory limit, probes on the admin server's /healthz and /readyz, and the token from the Secret.
func TestPodSecurityProbesResourcesAndToken(t *testing.T) {
	r := render(t, "payments", "agents", values(t, "ci/values-test.yaml"))
	pod := r.deployment(t).Spec.Template.Spec
	c := pod.Containers[0]
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("no container securityContext")
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
		t.Error("runAsNonRoot is not true")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("readOnlyRootFilesystem is not true")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation is not false")
	case sc.Capabilities == nil || !reflect.DeepEqual(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("capabilities %+v, want drop [ALL] and no add", sc.Capabilities)
	case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("seccompProfile %+v, want RuntimeDefault", sc.SeccompProfile)
	}
	if p := pod.SecurityContext; p == nil || p.RunAsNonRoot == nil || !*p.RunAsNonRoot || p.RunAsUser == nil || *p.RunAsUser == 0 {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and a non-zero runAsUser (the image's user)", p)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the pod mounts a service account token; the Sidecar never calls the Kubernetes API")
	}
	for probe, want := range map[*corev1.Probe]string{c.LivenessProbe: "/healthz", c.ReadinessProbe: "/readyz"} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != want || probe.HTTPGet.Port.String() != "metrics" {
			t.Errorf("probe %+v, want GET %s on port metrics", probe, want)
		}
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want cpu and memory requests and a memory limit", c.Resources)
	}
	if len(c.Env) != 1 || c.Env[0].Name != "HOOP_SIDECAR_TOKEN" || c.Env[0].ValueFrom == nil ||
		c.Env[0].ValueFrom.SecretKeyRef == nil || c.Env[0].ValueFrom.SecretKeyRef.Name != "hoop-sidecar-token" ||
		c.Env[0].ValueFrom.SecretKeyRef.Key != "token" {
		t.Errorf("env %+v: want HOOP_SIDECAR_TOKEN from Secret hoop-sidecar-token, key token", c.Env)
	}
	if !reflect.DeepEqual(c.Args, []string{"run", "--config", "/etc/hoop/config.yaml"}) {
		t.Errorf("args %v", c.Args)
	}
	if pdb := r.PDBs; len(pdb) != 1 || pdb[0].Spec.MaxUnavailable == nil || pdb[0].Spec.MaxUnavailable.IntValue() != 1 ||
		!reflect.DeepEqual(pdb[0].Spec.Selector.MatchLabels, r.deployment(t).Spec.Selector.MatchLabels) {
		t.Errorf("PodDisruptionBudget %+v, want maxUnavailable 1 over the Deployment's pods", pdb)
	}

	// token_file: the Secret is mounted where the config reads it.
	r = render(t, "payments", "agents", values(t, "", withToken, `config: {control_plane: {token_env: null, token_file: /var/run/hoop/token}}`))
	pod = r.deployment(t).Spec.Template.Spec
	if len(pod.Containers[0].Env) != 0 {
		t.Errorf("env %+v with token_file, want none", pod.Containers[0].Env)
	}
	var mounted bool
	for _, m := range pod.Containers[0].VolumeMounts {
		if m.Name == "token" && m.MountPath == "/var/run/hoop" && m.ReadOnly {
			mounted = true
		}
	}
	for _, v := range pod.Volumes {
		if v.Name == "token" && (v.Secret == nil || v.Secret.SecretName != "hoop-sidecar-token" ||
			len(v.Secret.Items) != 1 || v.Secret.Items[0].Key != "token" || v.Secret.Items[0].Path != "token") {
			t.Errorf("token volume %+v", v)
		}
	}
	if !mounted {
		t.Errorf("the token Secret is not mounted at /var/run/hoop: %+v", pod.Containers[0].VolumeMounts)
	}
}

// The NetworkPolicy selects the Sidecar's pods and admits only the agent's pods, to the lanes'
// ports; metricsFrom reaches the admin port only.
func TestNetworkPolicyAdmitsOnlyTheAgentsPods(t *testing.T) {
	if r := render(t, "payments", "agents", values(t, "", withToken)); len(r.NetworkPolicies) != 0 {
		t.Errorf("a NetworkPolicy with the default values; it is optional")
	}
	r := render(t, "payments", "agents", values(t, "ci/values-test.yaml"))
	if len(r.NetworkPolicies) != 1 {
		t.Fatalf("%d NetworkPolicies, want 1", len(r.NetworkPolicies))
	}
	np := r.NetworkPolicies[0].Spec
	pods := r.deployment(t).Spec.Template.Labels
	if !subset(np.PodSelector.MatchLabels, pods) || len(np.PodSelector.MatchLabels) == 0 || len(np.PodSelector.MatchExpressions) > 0 {
		t.Errorf("podSelector %+v does not select exactly the Sidecar's pods %v", np.PodSelector, pods)
	}
	if other := map[string]string{"app.kubernetes.io/name": "hoopsidecar", "app.kubernetes.io/instance": "ledger"}; subset(np.PodSelector.MatchLabels, other) {
		t.Errorf("podSelector %v also selects another release's pods", np.PodSelector.MatchLabels)
	}
	if len(np.PolicyTypes) != 1 || np.PolicyTypes[0] != "Ingress" || len(np.Ingress) != 1 {
		t.Fatalf("policyTypes %v, %d ingress rules; want Ingress with one rule", np.PolicyTypes, len(np.Ingress))
	}
	rule := np.Ingress[0]
	if len(rule.From) != 1 || rule.From[0].PodSelector == nil || rule.From[0].NamespaceSelector != nil || rule.From[0].IPBlock != nil ||
		!reflect.DeepEqual(rule.From[0].PodSelector.MatchLabels, map[string]string{"app.kubernetes.io/name": "my-agent"}) {
		t.Errorf("from %+v, want only pods labelled app.kubernetes.io/name=my-agent in the release's namespace", rule.From)
	}
	var ports []int
	for _, p := range rule.Ports {
		ports = append(ports, p.Port.IntValue())
	}
	if !reflect.DeepEqual(ports, []int{8765, 15432}) {
		t.Errorf("admitted ports %v, want the MCP port 8765 and the listener 15432 (the pods' ports)", ports)
	}

	r = render(t, "payments", "agents", values(t, "ci/values-test.yaml",
		`networkPolicy: {agentNamespaceSelector: {kubernetes.io/metadata.name: agents}, metricsFrom: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}]}`))
	np = r.NetworkPolicies[0].Spec
	if len(np.Ingress) != 2 || np.Ingress[0].From[0].NamespaceSelector == nil ||
		np.Ingress[0].From[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "agents" || np.Ingress[0].From[0].PodSelector == nil {
		t.Fatalf("ingress %+v: want the agent's pods AND its namespace in one peer, then a metrics rule", np.Ingress)
	}
	if m := np.Ingress[1]; len(m.Ports) != 1 || m.Ports[0].Port.IntValue() != 9090 || m.From[0].NamespaceSelector == nil {
		t.Errorf("metrics rule %+v, want monitoring to port 9090 only", m)
	}

	// No lane: nothing admitted (an empty ports list would admit every port).
	r = render(t, "payments", "agents", values(t, "ci/values-test.yaml", `laneServices: {mcp: {enabled: false}, payments: {enabled: false}}`))
	if in := r.NetworkPolicies[0].Spec.Ingress; in == nil || len(in) != 0 {
		t.Errorf("ingress %+v without lanes, want [] (nothing admitted)", in)
	}

	if _, err := renderErr(t, "payments", "agents", values(t, "", withToken, `networkPolicy: {enabled: true}`)); err == nil ||
		!strings.Contains(err.Error(), "networkPolicy.agentPodSelector is required") {
		t.Errorf("enabled without agentPodSelector: %v, want a refusal (an empty selector admits every pod)", err)
	}
}

// The checksum/config annotation changes with the config, so a config change rolls the pods,
// and only then.
func TestChecksumAnnotationRollsPodsOnConfigChange(t *testing.T) {
	sum := func(over ...string) string {
		d := render(t, "payments", "agents", values(t, "", append([]string{withToken}, over...)...)).deployment(t)
		s := d.Spec.Template.Annotations["checksum/config"]
		if len(s) != 64 {
			t.Fatalf("checksum/config %q, want a sha256", s)
		}
		return s
	}
	base := sum()
	if s := sum(`config: {log: {level: debug}}`); s == base {
		t.Error("checksum/config did not change when config.log.level did")
	}
	if s := sum(`config: {listeners: [{name: p, protocol: postgres, listen: 0.0.0.0:15432, upstream: db:5432}]}`); s == base {
		t.Error("checksum/config did not change when a listener was added")
	}
	if s := sum(`replicaCount: 5`, `resources: {limits: {memory: 1Gi}}`); s != base {
		t.Error("checksum/config changed although the config did not")
	}
}

// The rendered config is accepted by the real `sidecar validate`, for every values set; a config
// mistake in the values is caught by it (the check can fail).
func TestRenderedConfigPassesSidecarValidate(t *testing.T) {
	for name, vs := range valuesSets {
		t.Run(name, func(t *testing.T) {
			validateConfig(t, render(t, "payments", "agents", values(t, vs.file, vs.over...)).configYAML(t))
		})
	}
	t.Run("a typo in the values", func(t *testing.T) {
		cfg := render(t, "payments", "agents", values(t, "", withToken,
			`config: {listeners: [{name: p, protocol: postgres, listen: 0.0.0.0:15432, upstrem: db:5432}]}`)).configYAML(t)
		out, err := sidecarValidate(t, cfg)
		if err == nil || !strings.Contains(out, "listeners[0].upstrem: unknown key") {
			t.Fatalf("sidecar validate: %v\n%s; want it to name listeners[0].upstrem", err, out)
		}
	})
}

// The default image is the one `make image` builds: hoophq/sidecar:<internal/version.Version>.
func TestImageDefaultsToTheMakeImageName(t *testing.T) {
	ch := loadChart(t)
	if ch.Metadata.AppVersion != version.Version {
		t.Errorf("Chart.yaml appVersion %s, internal/version.Version %s: keep them equal", ch.Metadata.AppVersion, version.Version)
	}
	img := render(t, "payments", "agents", values(t, "", withToken)).deployment(t).Spec.Template.Spec.Containers[0].Image
	if img != "hoophq/sidecar:"+version.Version {
		t.Errorf("image %s, want hoophq/sidecar:%s", img, version.Version)
	}
	img = render(t, "payments", "agents", values(t, "", withToken, `image: {repository: registry.example/hoop/sidecar, tag: "1.2.3"}`)).
		deployment(t).Spec.Template.Spec.Containers[0].Image
	if img != "registry.example/hoop/sidecar:1.2.3" {
		t.Errorf("image %s with repository and tag set", img)
	}
}

// What the chart refuses to render, with a message that says what to set.
func TestChartRefusesValuesThatCannotWork(t *testing.T) {
	for want, over := range map[string][]string{
		"token.existingSecret is required":                              nil,
		"config.mcp.listen is 127.0.0.1:8765: set listen: 0.0.0.0:8765": {withToken, `config: {mcp: {listen: 127.0.0.1:8765}}`},
		"config.admin.listen 127.0.0.1:9090 is loopback":                {withToken, `config: {admin: {listen: 127.0.0.1:9090}}`},
		"config.admin.listen is required":                               {withToken, `config: {admin: null}`},
		"laneServices.Pay_DB: a lane name is a DNS label":               {withToken, `laneServices: {Pay_DB: {enabled: true, ports: [{name: pg, port: 5432}]}}`},
		"is longer than 63 characters":                                  {withToken, `fullnameOverride: ` + strings.Repeat("x", 60)},
		"the name metrics is used for two container ports":              {withToken, `laneServices: {pg: {enabled: true, ports: [{name: metrics, port: 9100}]}}`},
		"laneServices.pg.ports: at least one":                           {withToken, `laneServices: {pg: {enabled: true}}`},
	} {
		_, err := renderErr(t, "payments", "agents", values(t, "", over...))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("values %v: error %v, want one containing %q", over, err, want)
		}
	}
}

// The rendered Deployment against the real binary: a Sidecar started with the ConfigMap's
// config (listen ports moved to free ones, the Control Plane's URL set) answers the probes'
// paths on the container port the probes name, and the MCP lane's Service port reaches an MCP
// server that answers the agent's URL with Host <fullname>-mcp.<namespace>.svc:<port>.
func TestRenderedPodAnswersItsProbesAndTheMCPLane(t *testing.T) {
	cp := harness.StartControlPlane(t, harness.CPOptions{})
	adminPort, mcpPort := freePort(t), freePort(t)
	r := render(t, "payments", "agents", values(t, "", withToken,
		fmt.Sprintf(`config: {control_plane: {url: %s}, admin: {listen: "0.0.0.0:%d"}, mcp: {listen: "0.0.0.0:%d"}}`, cp.URL, adminPort, mcpPort),
		fmt.Sprintf(`laneServices: {mcp: {ports: [{name: mcp, port: %d}]}}`, mcpPort)))
	d := r.deployment(t)
	c := d.Spec.Template.Spec.Containers[0]
	harness.StartSidecar(t, harness.SidecarOptions{Config: r.configYAML(t), Token: "test-sidecar-token"})

	ports := containerPorts(d)
	for _, probe := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
		port := ports[probe.HTTPGet.Port.String()]
		code, body := get(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, probe.HTTPGet.Path))
		if code != 200 {
			t.Errorf("probe GET %s on port %s (%d): %d %q, want 200", probe.HTTPGet.Path, probe.HTTPGet.Port.String(), port, code, body)
		}
	}
	svc := r.service(t, "payments-hoopsidecar-mcp")
	target := svc.Spec.Ports[0].TargetPort.IntValue()
	host := fmt.Sprintf("%s.agents.svc:%d", svc.Name, svc.Spec.Ports[0].Port)
	code, body := toolsList(t, fmt.Sprintf("http://127.0.0.1:%d/mcp", target), host)
	if code != 200 || !strings.Contains(body, `"approval_wait"`) {
		t.Errorf("tools/list through the mcp lane with Host %s: %d %q, want 200 with the tools", host, code, body)
	}
}

// sidecarValidate runs the real `sidecar validate` (built from ./cmd/sidecar) on config.
func sidecarValidate(t *testing.T, config string) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(harness.Binary(t, "sidecar"), "validate", "--config", path).CombinedOutput()
	return string(out), err
}

// validateConfig fails the test unless `sidecar validate` accepts config.
func validateConfig(t *testing.T, config string) {
	t.Helper()
	if out, err := sidecarValidate(t, config); err != nil || !strings.Contains(out, ": valid") {
		t.Fatalf("sidecar validate refused the rendered config: %v\n%s\n%s", err, out, config)
	}
}

func containerPorts(d *appsv1.Deployment) map[string]int32 {
	m := map[string]int32{}
	for _, p := range d.Spec.Template.Spec.Containers[0].Ports {
		m[p.Name] = p.ContainerPort
	}
	return m
}

// subset reports whether every label of sel is in labels.
func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func freePort(t *testing.T) int {
	t.Helper()
	_, p, _ := net.SplitHostPort(harness.FreeAddr(t))
	var n int
	fmt.Sscan(p, &n)
	return n
}
