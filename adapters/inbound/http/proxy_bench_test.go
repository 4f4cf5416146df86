package httplistener_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	httplistener "github.com/hoophq/sidecar/adapters/inbound/http"
	"github.com/hoophq/sidecar/adapters/outbound/metrics"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/listenertest"
)

// BenchmarkAllowedGet measures a GET that no rule holds (the hot path: the
// analyzer, the gate, the reverse proxy) through an in-process http listener
// without a Control Plane, against the same GET sent straight to the
// httptest upstream in the same benchmark. ns/op, B/op and allocs/op are
// the listener's path (client and upstream included); direct-ns/op is the
// direct path and sidecar/direct the ratio of the two. "serial" is one
// keep-alive connection, "parallel16" sixteen.
//
//	go test -run '^$' -bench AllowedGet -benchmem ./adapters/inbound/http/
func BenchmarkAllowedGet(b *testing.B) {
	body := []byte(`{"items":[{"id":1,"name":"one"},{"id":2,"name":"two"}]}` + "\n")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(up.Close)
	addr := benchListener(b, app.ListenerSettings{Name: "api", Protocol: "http", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{benchRule(b, []string{"DELETE", "PUT", "PATCH"}, []string{"/v1/**"})}})
	const path = "/v1/items?limit=10"
	for _, conc := range []struct {
		name string
		n    int
	}{{"serial", 1}, {"parallel16", 16}} {
		b.Run(conc.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc.n, DisableCompression: true}}
			b.Cleanup(client.CloseIdleConnections)
			direct, sidecar := up.URL+path, "http://"+addr+path
			getN(b, client, direct, 100, conc.n) // warm both connection pools
			getN(b, client, sidecar, 100, conc.n)
			b.ReportAllocs()
			b.ResetTimer()
			b.StopTimer()
			t0 := time.Now()
			getN(b, client, direct, b.N, conc.n)
			d := time.Since(t0)
			b.StartTimer()
			t1 := time.Now()
			getN(b, client, sidecar, b.N, conc.n)
			s := time.Since(t1)
			b.StopTimer()
			b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "direct-ns/op")
			b.ReportMetric(float64(s)/float64(d), "sidecar/direct")
		})
	}
}

// getN sends n GETs of url over conc goroutines and fails b on any answer
// other than 200.
func getN(b *testing.B, c *http.Client, url string, n, conc int) {
	listenertest.RunN(b, n, conc, func() error {
		resp, err := c.Get(url)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return nil
	})
}

// benchListener serves an http listener with settings s on 127.0.0.1:0 on a
// core without a Control Plane until b ends, and returns its address.
func benchListener(b *testing.B, s app.ListenerSettings) string {
	b.Helper()
	core := app.NewCore(app.CoreOptions{Sidecar: "bench", Metrics: metrics.New()})
	return listenertest.Serve(b, httplistener.New(nil), core.Listener(s))
}

func benchRule(b *testing.B, actions, targets []string) domain.ApprovalRule {
	b.Helper()
	m := domain.Match{Actions: actions, Targets: targets}
	if err := m.Compile(); err != nil {
		b.Fatal(err)
	}
	return domain.ApprovalRule{Name: "writes", Match: m}
}

// BenchmarkRelayGET measures allowed GETs on one kept-alive connection
// written and read on a raw socket (no http.Client in the numbers), through
// an in-process listener to an in-process upstream: "same" repeats one
// request head, "varying" changes the path every time (a listener can reuse
// nothing of the previous request's reading).
//
//	go test -run '^$' -bench RelayGET -benchmem ./adapters/inbound/http/
func BenchmarkRelayGET(b *testing.B) {
	body := []byte(`{"items":[{"id":1,"name":"one"},{"id":2,"name":"two"}]}` + "\n")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(up.Close)
	addr := benchListener(b, app.ListenerSettings{Name: "api", Protocol: "http", Upstream: up.URL, Mode: app.ModeReturn,
		Approvals: []domain.ApprovalRule{benchRule(b, []string{"DELETE"}, []string{"/v1/**"})}})
	for _, vary := range []bool{false, true} {
		name := "same"
		if vary {
			name = "varying"
		}
		b.Run(name, func(b *testing.B) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			br := bufio.NewReader(c)
			reqs := make([][]byte, 64)
			for i := range reqs {
				p := "/v1/items?limit=10"
				if vary {
					p = fmt.Sprintf("/v1/items/%d?limit=10", i)
				}
				reqs[i] = []byte("GET " + p + " HTTP/1.1\r\nHost: api\r\nUser-Agent: bench\r\n\r\n")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Write(reqs[i%len(reqs)]); err != nil {
					b.Fatal(err)
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}
