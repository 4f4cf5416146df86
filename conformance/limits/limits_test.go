package limits

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/internal/listenertest"
)

const (
	clients   = 200     // half PostgreSQL, half http
	statement = 8 << 20 // bytes of each held statement
	heldBytes = 64 << 20
)

// bound is the documented bound (docs/config.md, "limits"; app.RSSBound)
// for held_bytes: 64MiB, conns open client connections and sqlListeners SQL
// listeners: a base of 160 MiB, 5 × held_bytes, 256 KiB per open client
// connection and 16 MiB per SQL listener (its analysis cache).
func bound(conns, sqlListeners int) int64 {
	return app.Limits{HeldBytes: heldBytes}.RSSBound(conns, sqlListeners)
}

// 100 PostgreSQL clients and 100 http clients at once each send a held 8 MiB
// statement (an 8 MiB DELETE text; a PUT with an 8 MiB body) to the real
// sidecar binary, configured with limits.held_bytes: 64MiB and no Control
// Plane. Each gets a protocol-native answer: the statement is read and
// denied (no Control Plane: 58000 / 403), or refused unread because the
// budget is full (53200 / 503). Meanwhile SELECT 1 and GET keep succeeding,
// and the Sidecar's peak resident memory stays under the documented bound.
func TestHeldStatementsStayWithinTheBudget(t *testing.T) {
	pgURL := harness.FreshDatabase(t)
	u, _ := url.Parse(pgURL)
	db := strings.TrimPrefix(u.Path, "/")
	setup, err := pgx.Connect(context.Background(), pgURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Exec(context.Background(), "CREATE TABLE t (v text)"); err != nil {
		t.Fatal(err)
	}
	setup.Close(context.Background())
	var upstreamPuts atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			upstreamPuts.Add(1)
		}
		io.WriteString(w, "ok")
	}))
	defer up.Close()

	// PostgreSQL serves 100 connections by default: the 200 held clients go
	// through a second listener in front of a stand-in server (this test's
	// own, which only logs in and answers Sync); the loop of SELECT 1 goes to
	// the real PostgreSQL.
	stand := standIn(t)
	httpAddr, pgAddr, stormAddr := harness.FreeAddr(t), harness.FreeAddr(t), harness.FreeAddr(t)
	sc := harness.StartSidecar(t, harness.SidecarOptions{Config: fmt.Sprintf(`
sidecar: limits
limits: {held_bytes: 64MiB}
approval_rules:
  - {name: http-writes, match: {actions: [PUT, DELETE]}}
  - {name: sql-deletes, match: {actions: [DELETE]}}
listeners:
  - {name: api, protocol: http, listen: %s, upstream: %s, mode: return, approval_rules: [http-writes]}
  - {name: db, protocol: postgres, listen: %s, upstream: %s, mode: return, approval_rules: [sql-deletes]}
  - {name: storm, protocol: postgres, listen: %s, upstream: %s, mode: return, approval_rules: [sql-deletes]}
`, httpAddr, up.URL, pgAddr, u.Host, stormAddr, stand)})

	t.Logf("Sidecar resident memory before the storm (VmRSS): %d MiB", status(t, sc.PID(), "VmRSS:")>>20)

	// The loop of statements that need no approval.
	stop := make(chan struct{})
	var loopOK, loopErr atomic.Int64
	var loops sync.WaitGroup
	loops.Add(2)
	go func() {
		defer loops.Done()
		c, err := pgx.Connect(context.Background(), fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", pgAddr, db))
		if err != nil {
			t.Errorf("loop connect: %v", err)
			return
		}
		defer c.Close(context.Background())
		for {
			select {
			case <-stop:
				return
			default:
			}
			var one int
			if err := c.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
				loopErr.Add(1)
				t.Errorf("SELECT 1 during the storm: %v", err)
				return
			}
			loopOK.Add(1)
		}
	}()
	go func() {
		defer loops.Done()
		hc := &http.Client{Timeout: 30 * time.Second}
		for {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := hc.Get("http://" + httpAddr + "/v1/items")
			if err != nil || resp.StatusCode != 200 {
				loopErr.Add(1)
				t.Errorf("GET during the storm: %v %v", err, resp)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			loopOK.Add(1)
		}
	}()

	// One shared 8 MiB Query frame and PUT body (the test process sends the
	// same bytes 200 times instead of holding 200 copies).
	text := "DELETE FROM t WHERE v = '" + strings.Repeat("x", statement-64) + "'"
	frame := binary.BigEndian.AppendUint32([]byte{'Q'}, uint32(4+len(text)+1))
	frame = append(append(frame, text...), 0)
	body := bytes.Repeat([]byte("y"), statement)

	var mu sync.Mutex
	answers := map[string]int{}
	note := func(k string) {
		if len(k) > 160 {
			k = k[:160] + "…"
		}
		mu.Lock()
		answers[k]++
		mu.Unlock()
	}
	// Every PostgreSQL client logs in first; then all 200 send at once.
	var storm, ready sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < clients/2; i++ {
		storm.Add(2)
		ready.Add(1)
		go func() {
			defer storm.Done()
			note("postgres " + sendQuery(t, stormAddr, db, frame, ready.Done, start))
		}()
		go func(i int) {
			defer storm.Done()
			<-start
			note("http " + sendPut(t, httpAddr, i, body))
		}(i)
	}
	ready.Wait()
	began := time.Now()
	close(start)
	storm.Wait()
	t.Logf("the storm took %s", time.Since(began).Round(time.Millisecond))
	close(stop)
	loops.Wait()

	t.Logf("answers: %v; statements that need no approval answered meanwhile: %d", answers, loopOK.Load())
	for k, n := range answers {
		switch k {
		case "postgres 58000", "postgres 53200", "http 403", "http 503":
		default:
			t.Errorf("%d client(s) got %q, want a denial (58000, 403) or a budget refusal (53200, 503)", n, k)
		}
	}
	if loopOK.Load() == 0 || loopErr.Load() != 0 {
		t.Errorf("SELECT 1 / GET during the storm: %d ok, %d failed", loopOK.Load(), loopErr.Load())
	}
	if upstreamPuts.Load() != 0 {
		t.Errorf("%d held PUTs reached the upstream", upstreamPuts.Load())
	}
	limit := bound(clients+8, 2) // two postgres listeners
	hwm := status(t, sc.PID(), "VmHWM:")
	t.Logf("Sidecar peak RSS (VmHWM): %d MiB; documented bound for held_bytes 64MiB and %d connections: %d MiB",
		hwm>>20, clients+8, limit>>20)
	if hwm > limit {
		t.Errorf("peak RSS %d MiB is over the documented bound of %d MiB", hwm>>20, limit>>20)
	}
}

// sendQuery logs in through the listener, calls loggedIn, waits for start,
// sends frame (one Query) and returns the SQLSTATE of the ErrorResponse it
// gets ("ok" when none).
func sendQuery(t *testing.T, addr, db string, frame []byte, loggedIn func(), start chan struct{}) string {
	var once sync.Once
	defer once.Do(loggedIn)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(120 * time.Second))
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "postgres", "database": db}})
	if err := fe.Flush(); err != nil {
		return "startup: " + err.Error()
	}
	if got := untilReady(fe); got != "ok" {
		return "login: " + got
	}
	once.Do(loggedIn)
	<-start
	if _, err := c.Write(frame); err != nil {
		return "write: " + err.Error()
	}
	return untilReady(fe)
}

// untilReady reads until ReadyForQuery and returns the first error's code.
func untilReady(fe *pgproto3.Frontend) string {
	got := "ok"
	for {
		m, err := fe.Receive()
		if err != nil {
			return "read: " + err.Error()
		}
		switch m := m.(type) {
		case *pgproto3.ErrorResponse:
			if got == "ok" {
				got = m.Code
			}
		case *pgproto3.ReadyForQuery:
			return got
		}
	}
}

// sendPut sends a held PUT with body and returns the answer's status code.
func sendPut(t *testing.T, addr string, i int, body []byte) string {
	req, _ := http.NewRequest(http.MethodPut, "http://"+addr+"/v1/items/"+strconv.Itoa(i), bytes.NewReader(body))
	req.Header.Set("X-Hoop-Approval", "return")
	hc := &http.Client{Timeout: 120 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return strconv.Itoa(resp.StatusCode)
}

// status returns a memory field (VmHWM:, VmRSS:) of process pid, in bytes.
func status(t *testing.T, pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == field && f[2] == "kB" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// standIn is a PostgreSQL stand-in on 127.0.0.1:0 for the held clients: it
// logs every client in, answers the listener's abort Parse (sent in place of
// a denied statement, so a transaction fails as PostgreSQL's would) with a
// syntax error as PostgreSQL does, and Sync with ReadyForQuery. It must never
// see a held statement.
func standIn(t *testing.T) string {
	return listenertest.ServeTCP(t, func(c net.Conn) {
		be := pgproto3.NewBackend(c, c)
		if _, err := be.ReceiveStartupMessage(); err != nil {
			return
		}
		be.Send(&pgproto3.AuthenticationOk{})
		be.Send(&pgproto3.ParameterStatus{Name: "server_version", Value: "17.0"})
		be.Send(&pgproto3.ParameterStatus{Name: "standard_conforming_strings", Value: "on"})
		be.Send(&pgproto3.ParameterStatus{Name: "client_encoding", Value: "UTF8"})
		be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
		be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		be.Flush()
		for {
			m, err := be.Receive()
			if err != nil {
				return
			}
			switch m := m.(type) {
			case *pgproto3.Parse:
				if !strings.HasPrefix(m.Query, "HOOP SIDECAR DENIED") {
					t.Errorf("the stand-in received a Parse of %.40q", m.Query)
					return
				}
				be.Send(&pgproto3.ErrorResponse{Severity: "ERROR", Code: "42601", Message: "syntax error at or near \"HOOP\""})
			case *pgproto3.Sync:
				be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
				be.Flush()
			case *pgproto3.Terminate:
				return
			default:
				t.Errorf("the stand-in received %T", m)
				return
			}
		}
	})
}
