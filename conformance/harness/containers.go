package harness

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Labels on every container the harness starts: the test process that owns
// it, so a later run can remove what a killed test process left behind
// (Ryuk, testcontainers' own reaper, is an image that cannot be pulled here).
const (
	labelOwner = "org.hoophq.test-owner"
	labelPID   = "org.hoophq.test-pid"
)

var (
	mainMu     sync.Mutex
	inMain     bool                       // TestMain is harness.Main: containers are stopped when it ends
	containers []testcontainers.Container // started by this process, stopped by Main
	running    = map[string][2]string{}   // kind name -> {host:port, image}: one container per kind and process
	reapOnce   sync.Once
)

// Main runs the tests of a package whose upstreams may be containers, then
// stops every container the harness started for them. Use it as
//
//	func TestMain(m *testing.M) { harness.Main(m) }
//
// Without it PickUpstream does not start containers (nothing would stop
// them) and goes on to this machine's servers.
func Main(m *testing.M) {
	mainMu.Lock()
	inMain = true
	mainMu.Unlock()
	code := m.Run()
	stopContainers()
	os.Exit(code)
}

func stopContainers() {
	mainMu.Lock()
	defer mainMu.Unlock()
	for _, c := range containers {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := c.Terminate(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "harness: stop container %s: %v\n", c.GetContainerID(), err)
		}
		cancel()
	}
	containers = nil
}

// TestcontainersEnv sets the testcontainers-go settings this machine kind
// needs unless the environment already has them: no Ryuk (its image cannot
// be pulled; Main and reapStale stop containers instead) and mapped ports
// on 127.0.0.1. They are read once, at testcontainers-go's first use.
func TestcontainersEnv() {
	for k, v := range map[string]string{
		"TESTCONTAINERS_RYUK_DISABLED": "true",
		"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1",
	} {
		if _, ok := os.LookupEnv(k); !ok {
			os.Setenv(k, v)
		}
	}
}

// Docker returns a client of the Docker engine, or an error saying why
// none answers.
func Docker(ctx context.Context) (*testcontainers.DockerClient, error) {
	TestcontainersEnv()
	return testcontainers.NewDockerClientWithOpts(ctx)
}

// ContainerURL returns the URL of a container of kind k for this test
// process (started once; the test binary's TestMain must be Main), or ""
// when no engine answers or there is no image; it logs why. It is the
// container step alone, for suites with their own order.
func ContainerURL(t testing.TB, k UpstreamKind) string {
	t.Helper()
	pickMu.Lock()
	defer pickMu.Unlock()
	hostport, image, why := containerUpstream(t, k)
	if why != "" {
		t.Logf("%s container: %s", k.Name, why)
		return ""
	}
	t.Logf("%s container: %s at %s", k.Name, image, hostport)
	return k.URL(hostport)
}

// containerUpstream starts (once per test process) a container of kind k
// and returns its server's host:port and image; or why it did not. Callers
// hold pickMu.
func containerUpstream(t testing.TB, k UpstreamKind) (hostport, image, why string) {
	t.Helper()
	if r, ok := running[k.Name]; ok {
		if ping(k, k.URL(r[0])) == nil {
			return r[0], r[1], ""
		}
		delete(running, k.Name)
	}
	hostport, image, why = startContainer(t, k)
	if why == "" {
		running[k.Name] = [2]string{hostport, image}
	}
	return hostport, image, why
}

func startContainer(t testing.TB, k UpstreamKind) (hostport, image, why string) {
	t.Helper()
	if v := os.Getenv("HOOP_TEST_CONTAINERS"); v == "off" {
		return "", "", "containers: HOOP_TEST_CONTAINERS=off"
	}
	mainMu.Lock()
	ok := inMain
	mainMu.Unlock()
	if !ok {
		return "", "", "containers: this test package's TestMain is not harness.Main, which stops them"
	}
	image, explicit := k.Image, false
	if v := os.Getenv(k.ImageEnv); v != "" {
		image, explicit = v, true
	}
	if image == "" {
		return "", "", fmt.Sprintf("containers: no %s image is built here (%s); %s names one", k.Name, k.NoImage, k.ImageEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dc, err := Docker(ctx)
	if err != nil {
		return "", image, fmt.Sprintf("containers: no Docker engine answers (%v; scripts/docker-engine.sh starts one)", err)
	}
	defer dc.Close()
	reapOnce.Do(func() { reapStale(ctx, dc) })
	if _, err := dc.ImageInspect(ctx, image); err != nil {
		if !explicit {
			how := k.ImageHowTo
			if how == "" {
				how = "scripts/test-images.sh builds it"
			}
			return "", image, fmt.Sprintf("containers: the image %s is not on this engine (%s)", image, how)
		}
		// A named image may come from a registry; a short try, since none may answer.
		pctx, pcancel := context.WithTimeout(ctx, 45*time.Second)
		defer pcancel()
		rc, err := dc.ImagePull(pctx, image, client.ImagePullOptions{})
		if err == nil {
			err = rc.Wait(pctx)
		}
		if err != nil {
			return "", image, fmt.Sprintf("containers: %s is not on this engine and cannot be pulled (%v)", image, err)
		}
	}
	c, err := testcontainers.Run(ctx, image,
		testcontainers.WithExposedPorts(k.Port),
		testcontainers.WithEnv(k.Env),
		testcontainers.WithLabels(map[string]string{labelOwner: "hoop-conformance", labelPID: strconv.Itoa(os.Getpid())}),
	)
	if c != nil {
		mainMu.Lock()
		containers = append(containers, c)
		mainMu.Unlock()
	}
	if err != nil {
		return "", image, fmt.Sprintf("containers: start %s: %v", image, err)
	}
	ep, err := c.PortEndpoint(ctx, k.Port, "")
	if err != nil {
		return "", image, fmt.Sprintf("containers: %s port %s: %v", image, k.Port, err)
	}
	// The port is mapped before the server listens: wait until it answers.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
		err = k.Ping(pctx, k.URL(ep))
		pcancel()
		if err == nil {
			return ep, image, ""
		}
		if time.Now().After(deadline) {
			return "", image, fmt.Sprintf("containers: %s started but its server did not answer at %s within 2 minutes (%v)", image, ep, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// reapStale removes containers that a harness in a test process no longer
// running left behind (killed before Main could stop them).
func reapStale(ctx context.Context, dc *testcontainers.DockerClient) {
	list, err := dc.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", labelOwner+"=hoop-conformance")})
	if err != nil {
		return
	}
	for _, c := range list.Items {
		pid, err := strconv.Atoi(c.Labels[labelPID])
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		_, _ = dc.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	}
}

func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}
