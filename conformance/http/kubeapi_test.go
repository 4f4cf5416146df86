package httpconformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// kubeAPI is a Kubernetes-API-shaped upstream: enough discovery (/version,
// /api, /apis, /api/v1) and pods (list, get, delete, log with follow) for
// kubectl get pods, kubectl delete pod and kubectl logs -f. Pods live in
// memory; logRelease, when closed, ends a followed log stream.
type kubeAPI struct {
	mu         sync.Mutex
	pods       map[string]bool // name → present, namespace "default"
	logRelease chan struct{}
}

func newKubeAPI() *kubeAPI {
	return &kubeAPI{pods: map[string]bool{"web-1": true, "x": true}, logRelease: make(chan struct{})}
}

func writeKube(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func podObject(name string) map[string]any {
	return map[string]any{"kind": "Pod", "apiVersion": "v1",
		"metadata": map[string]any{"name": name, "namespace": "default", "uid": "uid-" + name,
			"creationTimestamp": "2026-01-01T00:00:00Z"},
		"spec":   map[string]any{"containers": []any{map[string]any{"name": "main", "image": "busybox"}}},
		"status": map[string]any{"phase": "Running"}}
}

func notFound(name string) map[string]any {
	return map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
		"message": fmt.Sprintf("pods %q not found", name), "details": map[string]any{"name": name, "kind": "pods"}}
}

func (k *kubeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const pods = "/api/v1/namespaces/default/pods"
	switch p := r.URL.Path; {
	case p == "/version":
		writeKube(w, 200, map[string]any{"major": "1", "minor": "32", "gitVersion": "v1.32.4", "platform": "linux/amd64"})
	case p == "/api":
		writeKube(w, 200, map[string]any{"kind": "APIVersions", "versions": []string{"v1"},
			"serverAddressByClientCIDRs": []any{map[string]any{"clientCIDR": "0.0.0.0/0", "serverAddress": r.Host}}})
	case p == "/apis":
		writeKube(w, 200, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{}})
	case p == "/api/v1":
		writeKube(w, 200, map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{
			map[string]any{"name": "pods", "singularName": "pod", "namespaced": true, "kind": "Pod",
				"verbs": []string{"create", "delete", "get", "list", "patch", "update", "watch"}, "shortNames": []string{"po"}},
			map[string]any{"name": "pods/log", "singularName": "", "namespaced": true, "kind": "Pod", "verbs": []string{"get"}},
		}})
	case p == pods && r.Method == http.MethodGet:
		k.list(w, r)
	case strings.HasPrefix(p, pods+"/") && strings.HasSuffix(p, "/log"):
		k.log(w, r, strings.TrimSuffix(strings.TrimPrefix(p, pods+"/"), "/log"))
	case strings.HasPrefix(p, pods+"/"):
		name := strings.TrimPrefix(p, pods+"/")
		k.mu.Lock()
		present := k.pods[name]
		if present && r.Method == http.MethodDelete {
			delete(k.pods, name)
		}
		k.mu.Unlock()
		switch {
		case !present:
			writeKube(w, 404, notFound(name))
		case r.Method == http.MethodGet || r.Method == http.MethodDelete:
			writeKube(w, 200, podObject(name))
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	default:
		writeKube(w, 404, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
			"message": "the server could not find the requested resource"})
	}
}

// list answers a pod list, as a Table when kubectl asks for one.
func (k *kubeAPI) list(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	var names []string
	for n := range k.pods {
		names = append(names, n)
	}
	k.mu.Unlock()
	if strings.Contains(r.Header.Get("Accept"), "as=Table") {
		var rows []any
		for _, n := range names {
			rows = append(rows, map[string]any{"cells": []any{n, "Running"},
				"object": map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
					"metadata": map[string]any{"name": n, "namespace": "default"}}})
		}
		writeKube(w, 200, map[string]any{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": map[string]any{},
			"columnDefinitions": []any{map[string]any{"name": "Name", "type": "string", "format": "name"},
				map[string]any{"name": "Status", "type": "string"}},
			"rows": rows})
		return
	}
	var items []any
	for _, n := range names {
		items = append(items, podObject(n))
	}
	writeKube(w, 200, map[string]any{"kind": "PodList", "apiVersion": "v1", "metadata": map[string]any{}, "items": items})
}

// log streams "line 1", flushes, then (with follow=true) waits for
// logRelease before "line 2", like kubectl logs -f on a running pod.
func (k *kubeAPI) log(w http.ResponseWriter, r *http.Request, name string) {
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "%s line 1\n", name)
	w.(http.Flusher).Flush()
	if r.URL.Query().Get("follow") == "true" {
		select {
		case <-k.logRelease:
		case <-r.Context().Done():
			return
		case <-time.After(time.Minute):
		}
	}
	fmt.Fprintf(w, "%s line 2\n", name)
}
