package httplistener

import (
	"net/http"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// kubeRequest is a Kubernetes API path read as the API server routes it
// (Kubernetes API concepts, "Resource URIs"):
//
//	/api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}[/…]]]
//	/apis/{group}/{version}[/namespaces/{ns}]/{resource}[/{name}[/{subresource}[/…]]]
//
// with an optional "watch/" before the resource (the old watch paths).
// /api/v1/namespaces/{name} and its status and finalize subresources are
// the namespaces resource itself.
type kubeRequest struct {
	group, resource, name, subresource string
}

// kubePath reads p as a Kubernetes API path; ok is false for any other
// path (and for discovery paths such as /api/v1, which name no resource).
func kubePath(p string) (k kubeRequest, ok bool) {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	var rest []string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		rest = segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		k.group, rest = segs[1], segs[3:]
	default:
		return k, false
	}
	if rest[0] == "watch" {
		rest = rest[1:]
	}
	if len(rest) >= 3 && rest[0] == "namespaces" &&
		!(len(rest) == 3 && (rest[2] == "status" || rest[2] == "finalize")) {
		rest = rest[2:] // a namespaced resource
	}
	if len(rest) == 0 || rest[0] == "" {
		return k, false
	}
	k.resource = rest[0]
	if len(rest) > 1 {
		k.name = rest[1]
	}
	if len(rest) > 2 {
		k.subresource = rest[2]
	}
	return k, true
}

// readMethod reports whether a method only reads (GET, HEAD, OPTIONS; a
// watch is a GET).
func readMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// effects returns what a request with method m (upper case) on k adds to
// the method's own effects:
//
//   - DELETE of a collection (no name): UNBOUNDED, unless a labelSelector
//     or fieldSelector narrows it (deletecollection, `kubectl delete pods
//     --all` vs `-l app=web`); of a namespace, or of a
//     CustomResourceDefinition: DROP (every object in it goes too);
//   - pods/exec, pods/attach (any method: a WebSocket exec is a GET),
//     pods/ephemeralcontainers written (kubectl debug): OS_COMMAND;
//     nodes/proxy: OS_COMMAND and UNKNOWN (the kubelet API behind it runs
//     commands in any pod); pods/portforward and the other proxy
//     subresources: UNKNOWN (any traffic to the workload);
//   - pods/eviction: DELETE (it deletes the pod);
//   - written: RBAC roles and bindings, serviceaccounts/token (a new
//     credential), certificatesigningrequests/approval: PRIVILEGE;
//     customresourcedefinitions: SCHEMA_CHANGE; admission webhooks and
//     policies: ADMIN.
func (k kubeRequest) effects(m string, r *http.Request) []string {
	var out []string
	write := !readMethod(m)
	if m == http.MethodDelete {
		switch {
		case k.name == "":
			if !narrowed(r) {
				out = append(out, domain.EffectUnbounded)
			}
			if k.group == "" && k.resource == "namespaces" ||
				k.group == "apiextensions.k8s.io" && k.resource == "customresourcedefinitions" {
				out = append(out, domain.EffectDrop)
			}
		case k.subresource == "" && (k.group == "" && k.resource == "namespaces" ||
			k.group == "apiextensions.k8s.io" && k.resource == "customresourcedefinitions"):
			out = append(out, domain.EffectDrop)
		}
	}
	switch k.group + "/" + k.resource + "/" + k.subresource {
	case "/pods/exec", "/pods/attach":
		out = append(out, domain.EffectOSCommand)
	case "/pods/ephemeralcontainers":
		if write {
			out = append(out, domain.EffectOSCommand)
		}
	case "/nodes/proxy":
		out = append(out, domain.EffectOSCommand, domain.EffectUnknown)
	case "/pods/portforward", "/pods/proxy", "/services/proxy":
		out = append(out, domain.EffectUnknown)
	case "/pods/eviction", "policy/pods/eviction":
		if write {
			out = append(out, domain.EffectDelete)
		}
	case "/serviceaccounts/token", "certificates.k8s.io/certificatesigningrequests/approval":
		if write {
			out = append(out, domain.EffectPrivilege)
		}
	}
	if !write {
		return out
	}
	switch k.group {
	case "rbac.authorization.k8s.io":
		switch k.resource {
		case "roles", "rolebindings", "clusterroles", "clusterrolebindings":
			out = append(out, domain.EffectPrivilege)
		}
	case "apiextensions.k8s.io":
		if k.resource == "customresourcedefinitions" {
			out = append(out, domain.EffectSchemaChange)
		}
	case "admissionregistration.k8s.io":
		out = append(out, domain.EffectAdmin)
	}
	return out
}

// narrowed reports whether a collection request's query names a selector
// that limits it: every labelSelector value, or every fieldSelector value,
// is not blank (a blank selector selects everything; when a key is sent
// twice, whichever value the server takes must narrow).
func narrowed(r *http.Request) bool {
	if r == nil || r.URL.RawQuery == "" {
		return false
	}
	q := r.URL.Query()
	for _, key := range []string{"labelSelector", "fieldSelector"} {
		vs := q[key]
		ok := len(vs) > 0
		for _, v := range vs {
			if strings.TrimSpace(v) == "" {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}
