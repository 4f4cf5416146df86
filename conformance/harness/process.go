package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Process is a started binary whose combined output is kept for assertions
// and printed when the test fails.
type Process struct {
	Name string
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	err  error
}

func (p *Process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// Output returns everything the process printed so far.
func (p *Process) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Start starts bin with args (env added to this process's environment),
// keeps its output, and stops it at the end of the test.
func Start(t testing.TB, name string, env []string, bin string, args ...string) *Process {
	t.Helper()
	return start(t, name, env, bin, args...)
}

func start(t testing.TB, name string, env []string, bin string, args ...string) *Process {
	t.Helper()
	p := &Process{Name: name, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("---- %s output ----\n%s", name, p.Output())
		}
	})
	return p
}

// WaitFor waits until the output contains substr, failing the test after
// timeout or if the process exits first.
func (p *Process) WaitFor(t testing.TB, substr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Contains(p.Output(), substr) {
			return
		}
		select {
		case <-p.done:
			if strings.Contains(p.Output(), substr) {
				return
			}
			t.Fatalf("%s exited (%v) before printing %q:\n%s", p.Name, p.err, substr, p.Output())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("%s did not print %q within %s:\n%s", p.Name, substr, timeout, p.Output())
}

// PID returns the process id (e.g. to read /proc/<pid>/status).
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Signal sends sig to the process.
func (p *Process) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// Stop ends the process (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (p *Process) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Kill ends the process with SIGKILL, as a crash would (no shutdown, open
// connections dropped), and waits for it.
func (p *Process) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Wait waits for the process to exit by itself and returns its exit code.
func (p *Process) Wait(timeout time.Duration) (int, error) {
	select {
	case <-p.done:
		if ee, ok := p.err.(*exec.ExitError); ok {
			return ee.ExitCode(), nil
		}
		if p.err != nil {
			return -1, p.err
		}
		return 0, nil
	case <-time.After(timeout):
		return -1, fmt.Errorf("%s still running after %s", p.Name, timeout)
	}
}
