package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hoophq/sidecar/conformance/harness"
	"github.com/hoophq/sidecar/internal/listenertest"
)

// cutAfter is how many bytes of a statement's answer the reset proxy relays
// before it resets the connection: past the first CommandCompletes, well
// into the rows.
const cutAfter = 32 << 10

// resultSQL is the statement of TestUpstreamResetMidResult: it records v in
// runs and commits (so the upstream's record of the run outlives the lost
// connection: a statement whose transaction is still open when the
// connection goes is rolled back, and whether PostgreSQL noticed before its
// commit depends on socket buffers), then answers about 450 kB of rows.
func resultSQL(v string) string {
	return fmt.Sprintf("INSERT INTO runs VALUES ('%s'); COMMIT; SELECT g, repeat('x', 100) FROM generate_series(1, 4000) g", v)
}

// The upstream reset mid-result: between each Sidecar and the
// PostgreSQL upstream a TCP proxy of the test's own (resetProxy; it cuts
// the first answer of each statement at an exact byte, where toxiproxy's
// limit_data would cut every connection alike, the approved resend too)
// relays the first 32 kB of an approved statement's answer, the INSERT's
// and COMMIT's CommandCompletes and the start of its rows, then resets
// both connections (RST). Each
// statement's first run is cut so; the Sidecar cannot know how much of it
// ran, so its approval is spent (EXECUTED, under spend_approval_on: sent
// and accepted), the agent's next identical send is held as a new approval
// (never run without one, never under the spent one: sendPastReset checks
// each), and that approval runs it in full. The checker then holds with
// two runs per statement by the upstream's own record (the runs table),
// each under its own EXECUTED approval.
func TestUpstreamResetMidResult(t *testing.T) {
	resetMidResult(t, "PostgreSQL", postgresUpstream, cutAfter, "reset-", resultSQL, sendPastReset)
}

// resetMidResult runs the checker with a reset proxy between each
// Sidecar's listener and up (named kind in the log) that cuts each
// statement's first answer after cut bytes; sql makes each agent's
// statement from its value (name prefixes the values) and send is the
// agent's resend loop. Every statement runs twice (the cut run and the
// held resend's), each under its own EXECUTED approval, and each first
// answer is cut once.
func resetMidResult(t *testing.T, kind string, up upstream, cut int, name string, sql func(v string) string,
	send func(agentURL, sql string, limit time.Duration) (int, error)) {
	var rp *resetProxy
	f := startFleetVia(t, up, harness.FreshDatabase(t), 4*time.Second, func(host string) string {
		rp = startResetProxy(t, host)
		rp.cutAfter = cut
		return rp.addr()
	})
	run := f.run(3, 2)
	run.name, run.sql, run.runs, run.send = name, sql, 2, send
	v := run.check(t)
	if n := rp.cuts(); n != v.statements {
		t.Errorf("%d answers were reset, want one per statement (%d)", n, v.statements)
	}
	t.Logf("%s upstream reset mid-result %d times, after %d bytes of the answer each; %s", kind, rp.cuts(), rp.cutAfter, v)
}

// sendPastReset is sendUntilRun for a statement whose answer may be cut
// (on PostgreSQL, pgx, the simple protocol): see resendPastReset.
func sendPastReset(agentURL, sql string, limit time.Duration) (int, error) {
	return resendPastReset(func() attempt {
		c, err := pgx.Connect(context.Background(), agentURL)
		if err != nil {
			return attempt{err: err}
		}
		defer c.Close(context.Background())
		rs, err := c.PgConn().Exec(context.Background(), sql).ReadAll()
		a := attempt{err: err}
		for _, r := range rs {
			a.rows += len(r.Rows)
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			a.denial = pe.Message
		}
		return a
	}, limit)
}

// attempt is what one send of a statement got: err (nil: it ran), the
// denial's text when err is the Sidecar's denial, the rows that reached the
// agent.
type attempt struct {
	err    error
	denial string
	rows   int
}

// resendPastReset sends (try) until the statement runs, waiting 300 ms
// after each failure, as sendUntilRun does; it returns the sends made.
// After a send whose connection was lost mid-result (not a denial; some
// rows reached the agent, or that is an error), the statement must not run
// again until a denial named an approval other than the one it ran under
// (the lost run spent it).
func resendPastReset(try func() attempt, limit time.Duration) (int, error) {
	deadline := time.Now().Add(limit)
	lastID, spentID, lost := "", "", false
	for n := 1; ; n++ {
		a := try()
		switch {
		case a.err == nil && lost:
			return n, fmt.Errorf("send %d ran under approval %s, spent by the run whose answer was reset", n, spentID)
		case a.err == nil:
			return n, nil
		case a.denial != "":
			if ids := harness.ApprovalIDs(a.denial); len(ids) == 1 {
				lastID = ids[0]
				if lost && lastID != spentID {
					lost = false // held as a new approval: it may run once that is approved
				}
			}
		case !lost && lastID != "":
			if a.rows == 0 {
				return n, fmt.Errorf("send %d lost its connection before any row reached the agent (%v): not a reset mid-result", n, a.err)
			}
			lost, spentID = true, lastID
		}
		if time.Now().After(deadline) {
			return n, fmt.Errorf("still not run after %d sends: %v", n, a.err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// resetProxy is a TCP proxy in front of a PostgreSQL server. On a
// connection whose client sent a statement recording a value (its text
// has "VALUES ('v')") not cut before, it relays cutAfter bytes (by default
// the const cutAfter) of the
// server's answer from then on and then resets both connections.
type resetProxy struct {
	cutAfter int
	address  string
	target   string
	mu       sync.Mutex
	cut      map[string]bool // values whose answer was reset
}

func startResetProxy(t *testing.T, target string) *resetProxy {
	t.Helper()
	p := &resetProxy{cutAfter: cutAfter, target: target, cut: map[string]bool{}}
	p.address = listenertest.ServeTCP(t, p.serve)
	return p
}

func (p *resetProxy) addr() string { return p.address }

func (p *resetProxy) cuts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.cut)
}

// serve relays client's connection to the target.
func (p *resetProxy) serve(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	var mu sync.Mutex
	armed := "" // the value whose answer is being relayed, to be cut
	var once sync.Once
	reset := func() {
		once.Do(func() {
			for _, c := range []net.Conn{client, server} {
				_ = c.(*net.TCPConn).SetLinger(0) // Close sends an RST
				c.Close()
			}
		})
	}
	defer reset()
	go func() { // client to server: watch for the statement
		defer reset()
		buf := make([]byte, 64<<10)
		for {
			n, err := client.Read(buf)
			if n > 0 {
				if v, ok := valueIn(buf[:n]); ok {
					p.mu.Lock()
					if !p.cut[v] {
						mu.Lock()
						armed = v
						mu.Unlock()
					}
					p.mu.Unlock()
				}
				if _, werr := server.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 8<<10)
	relayed := 0
	for {
		n, err := server.Read(buf)
		if n > 0 {
			mu.Lock()
			v := armed
			mu.Unlock()
			chunk := buf[:n]
			if v != "" && relayed+n >= p.cutAfter {
				_, _ = client.Write(chunk[:p.cutAfter-relayed])
				p.mu.Lock()
				p.cut[v] = true
				p.mu.Unlock()
				return // reset
			}
			if v != "" {
				relayed += n
			}
			if _, werr := client.Write(chunk); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// valueIn finds the value of "VALUES ('v')" in a chunk of the client's
// stream (a Query message).
func valueIn(b []byte) (string, bool) {
	s := string(b)
	if !strings.Contains(s, "VALUES ('") {
		return "", false
	}
	return between(s, "VALUES ('", "')"), true
}
