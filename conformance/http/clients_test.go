package httpconformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clientTimeout bounds one run of a client binary, so a hang fails the test.
const clientTimeout = 60 * time.Second

// curl runs the real curl binary with -sS -i and the given arguments and
// returns the parsed answer and its body.
func curl(t *testing.T, args ...string) (*http.Response, string) {
	t.Helper()
	bin, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl is not installed (apt-get install curl)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-sS", "-i"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("curl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), &http.Request{Method: curlMethod(args)})
	if err != nil {
		t.Fatalf("curl output %q: %v", out, err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func curlMethod(args []string) string {
	for i, a := range args {
		if (a == "-X" || a == "--request") && i+1 < len(args) {
			return args[i+1]
		}
		if a == "-I" || a == "--head" {
			return http.MethodHead
		}
	}
	return http.MethodGet
}

// statusJSON reads the status path with curl and decodes the answer.
func statusJSON(t *testing.T, url string) (*http.Response, map[string]any) {
	t.Helper()
	resp, body := curl(t, url)
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: body %q is not JSON: %v", url, body, err)
	}
	return resp, m
}

// kubectlStart starts kubectl like kubectl does and returns its stdout as
// a stream; the process is killed when the test ends (or after clientTimeout).
func kubectlStart(t *testing.T, server string, args ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	t.Cleanup(cancel)
	cmd := kubectlCmd(t, ctx, server, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, stdout
}

// kubectl runs the real kubectl binary against server with an empty
// kubeconfig and a private HOME (discovery cache), and returns its combined
// output and whether it exited 0.
func kubectl(t *testing.T, server string, args ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	out, err := kubectlCmd(t, ctx, server, args...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("kubectl %s hung:\n%s", strings.Join(args, " "), out)
	}
	return string(out), err == nil
}

// kubectlCmd builds a kubectl command against server with an empty
// kubeconfig and a private HOME.
func kubectlCmd(t *testing.T, ctx context.Context, server string, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatal("kubectl is not installed")
	}
	home := t.TempDir()
	kubeconfig := filepath.Join(home, "kubeconfig")
	if err := os.WriteFile(kubeconfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", kubeconfig, "--server", server}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG="+kubeconfig)
	return cmd
}
