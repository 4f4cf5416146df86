package analyzer

import (
	"strconv"
	"strings"
	"testing"
)

// Typical agent statements.
var benchTexts = map[string]string{
	"select":  "SELECT TOP (50) id, email, created_at FROM dbo.users WHERE id = 12345",
	"join":    "SELECT o.id, SUM(i.price * i.qty) AS total FROM sales.orders o JOIN sales.order_items i ON i.order_id = o.id WHERE o.created_at > DATEADD(day, -7, GETDATE()) GROUP BY o.id ORDER BY total DESC",
	"insert":  "INSERT INTO [dbo].[events] ([user_id], [kind], [payload], [created_at]) VALUES (42, N'login', N'{\"ip\":\"10.0.0.1\"}', '2026-12-01T04:00:00')",
	"update":  "UPDATE dbo.users SET email = N'a@example.com', updated_at = SYSDATETIME() WHERE id = 7",
	"catalog": "SELECT s.name AS schema_name, t.name AS table_name FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id ORDER BY 1, 2",
	"exec":    "EXEC sp_executesql N'DELETE FROM dbo.sessions WHERE id = @p1', N'@p1 int', @p1 = 1",
	"batch2k": batch2K(),
}

// batch2K is a 2 KB batch of the statements an agent sends in one go.
func batch2K() string {
	parts := []string{
		"SET NOCOUNT ON;",
		"DECLARE @since datetime2 = DATEADD(day, -30, SYSDATETIME());",
		"SELECT u.id, u.email, COUNT(o.id) AS orders, MAX(o.created_at) AS last_order FROM dbo.users u LEFT JOIN sales.orders o ON o.user_id = u.id AND o.created_at >= @since WHERE u.active = 1 GROUP BY u.id, u.email HAVING COUNT(o.id) > 0 ORDER BY orders DESC;",
		"SELECT TOP (20) p.sku, p.name, SUM(i.qty) AS sold FROM sales.order_items i JOIN catalog.products p ON p.id = i.product_id WHERE i.created_at >= @since GROUP BY p.sku, p.name ORDER BY sold DESC;",
		"UPDATE dbo.users SET last_seen = SYSDATETIME() WHERE id IN (SELECT user_id FROM sales.orders WHERE created_at >= @since);",
		"INSERT INTO audit.events (kind, detail, created_at) VALUES (N'report', N'monthly sales report generated', SYSDATETIME());",
		"WITH ranked AS (SELECT o.id, o.user_id, ROW_NUMBER() OVER (PARTITION BY o.user_id ORDER BY o.created_at DESC) AS rn FROM sales.orders o) SELECT r.user_id, r.id FROM ranked r WHERE r.rn = 1;",
		"DELETE FROM dbo.sessions WHERE expires_at < SYSDATETIME();",
		"SELECT s.name AS schema_name, t.name AS table_name, SUM(p.rows) AS row_count FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id JOIN sys.partitions p ON p.object_id = t.object_id AND p.index_id IN (0, 1) GROUP BY s.name, t.name ORDER BY row_count DESC;",
		"IF EXISTS (SELECT 1 FROM dbo.jobs WHERE status = N'failed') BEGIN UPDATE dbo.jobs SET status = N'retry', attempts = attempts + 1 WHERE status = N'failed'; END",
		"SELECT CASE WHEN c.balance < 0 THEN N'negative' ELSE N'ok' END AS state, COUNT(*) FROM finance.accounts c GROUP BY CASE WHEN c.balance < 0 THEN N'negative' ELSE N'ok' END;",
	}
	s := strings.Join(parts, "\n")
	for len(s) < 2048 {
		s += "\nSELECT COUNT(*) FROM dbo.users WHERE created_at >= @since;"
	}
	return s
}

// BenchmarkAnalyzeSeenOnce: a text no cache has seen, parsed again after
// Warm and after this very text once: the grammar's prediction cache is warm
// for it, as for a statement of a structure seen before. The cost of a
// structure never seen is BenchmarkAnalyzeFirstSight's.
func BenchmarkAnalyzeSeenOnce(b *testing.B) {
	Warm()
	for name, text := range benchTexts {
		b.Run(name, func(b *testing.B) {
			Analyze(text, "app")
			ll := llParses.Load()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				Analyze(text, "app")
			}
			b.ReportMetric(float64(llParses.Load()-ll)/float64(b.N), "LL/op")
		})
	}
}

// BenchmarkCacheHit: the same text again (what a listener pays per repeated
// statement).
func BenchmarkCacheHit(b *testing.B) {
	for name, text := range benchTexts {
		b.Run(name, func(b *testing.B) {
			c := NewCache()
			c.Analyze(text, "app")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Analyze(text, "app")
			}
		})
	}
}

// BenchmarkCacheShapeHit: the same statement with another constant each
// time (… WHERE id = 1, = 2, …), never seen as such: one lexical pass, no
// parse.
func BenchmarkCacheShapeHit(b *testing.B) {
	c := NewCache()
	c.Analyze("SELECT TOP (50) id, email FROM dbo.users WHERE id = 1", "app")
	texts := make([]string, b.N)
	for i := range texts {
		texts[i] = "SELECT TOP (50) id, email FROM dbo.users WHERE id = " + strconv.Itoa(i+2)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Analyze(texts[i], "app")
	}
}
