package postgres

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BenchmarkListenerSelect measures one read-only statement that no rule
// holds (the hot path: read the message, analyse it, ask the gate, relay
// the answer) through an in-process listener to the real PostgreSQL,
// against the same statement sent straight to PostgreSQL in the same
// benchmark. ns/op, B/op and allocs/op are the listener's path (client and
// server included; allocations are the whole process's, client included);
// direct-ns/op is the direct path and sidecar/direct the ratio. "simple"
// sends a new constant each time (the analyzer's cache answers by the
// text's shape); "prepared" is pgx's default, a prepared statement with
// Bind/Execute/Sync.
//
//	go test -run '^$' -bench ListenerSelect -benchtime 5000x ./adapters/inbound/postgres/
func BenchmarkListenerSelect(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	connect := func(url string) *pgx.Conn {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close(ctx) })
		return c
	}
	direct, through := connect(f.adminURL(f.db)), connect(f.url("bench"))
	for _, mode := range []struct {
		name string
		run  func(c *pgx.Conn, i int) error
	}{
		{"simple", func(c *pgx.Conn, i int) error {
			_, err := c.Exec(ctx, "SELECT 1 WHERE "+strconv.Itoa(i)+" > 0", pgx.QueryExecModeSimpleProtocol)
			return err
		}},
		{"prepared", func(c *pgx.Conn, i int) error {
			var n int
			return c.QueryRow(ctx, "SELECT $1::int + 1", i).Scan(&n)
		}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			loop := func(c *pgx.Conn, n int) {
				for i := 0; i < n; i++ {
					if err := mode.run(c, i+1); err != nil {
						b.Fatal(err)
					}
				}
			}
			loop(direct, 100) // warm both connections
			loop(through, 100)
			b.ReportAllocs()
			b.ResetTimer()
			b.StopTimer()
			t0 := time.Now()
			loop(direct, b.N)
			d := time.Since(t0)
			b.StartTimer()
			loop(through, b.N)
			b.StopTimer()
			b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "direct-ns/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(d.Nanoseconds()), "sidecar/direct")
		})
	}
}
