package httpconformance

import (
	"bufio"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/app"
)

func TestKubectlDeleteHeldGetPodsPasses(t *testing.T) {
	kube := newKubeAPI()
	up, rec := newUpstream(t, kube)
	w := newWorld(t, startControlPlane(t, nil), "test")
	// kubectl cannot send X-Hoop-Approval, so the listener defaults to return mode.
	server := w.listen(t, listener{Name: "k8s", Upstream: up.URL, Mode: app.ModeReturn,
		Rules: []rule{{Name: "pod-deletes", Actions: []string{"DELETE"}, Targets: []string{"/api/v1/namespaces/*/pods/*"}}}})

	out, ok := kubectl(t, server, "delete", "pod", "x", "--wait=false")
	m := regexp.MustCompile(`^Error from server \(Forbidden\): statement held for human approval: waiting for approval; resend the identical statement once it is approved \(approval (\S+)\)`).FindStringSubmatch(out)
	if ok || m == nil {
		t.Fatalf("kubectl delete pod x (exit ok=%v):\n%s", ok, out)
	}
	id := m[1]
	t.Logf("kubectl printed: %s", strings.TrimSpace(out))
	if rec.count("DELETE", "/api/v1/namespaces/default/pods/x") != 0 {
		t.Fatal("the held DELETE reached the upstream")
	}

	out, ok = kubectl(t, server, "get", "pods")
	if !ok || !strings.Contains(out, "web-1") || !strings.Contains(out, "Running") {
		t.Fatalf("kubectl get pods:\n%s", out)
	}

	// kubectl resends the identical request once it is approved; it runs once.
	w.approve(t, id)
	out, ok = kubectl(t, server, "delete", "pod", "x", "--wait=false")
	if !ok || !strings.Contains(out, `pod "x" deleted`) {
		t.Fatalf("approved kubectl delete pod x:\n%s", out)
	}
	if n := rec.count("DELETE", "/api/v1/namespaces/default/pods/x"); n != 1 {
		t.Errorf("the DELETE reached the upstream %d times, want 1", n)
	}
}

func TestKubectlLogsFollowStreams(t *testing.T) {
	kube := newKubeAPI()
	up, _ := newUpstream(t, kube)
	w := newWorld(t, startControlPlane(t, nil), "test")
	server := w.listen(t, listener{Name: "k8s", Upstream: up.URL, Mode: app.ModeReturn,
		Rules: []rule{{Name: "pod-deletes", Actions: []string{"DELETE"}, Targets: []string{"/api/v1/namespaces/*/pods/*"}}}})
	// The upstream sends line 1 and holds the stream open until released:
	// kubectl must print line 1 while the stream is still open.
	cmd, stdout := kubectlStart(t, server, "logs", "-f", "web-1")
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	if err != nil || line != "web-1 line 1\n" {
		t.Fatalf("first line %q %v", line, err)
	}
	close(kube.logRelease)
	rest, _ := io.ReadAll(br)
	if err := cmd.Wait(); err != nil || string(rest) != "web-1 line 2\n" {
		t.Fatalf("rest %q, exit %v", rest, err)
	}
}
